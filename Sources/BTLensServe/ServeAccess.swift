import Hummingbird

/// Who may read the page: a browser on this machine by default; on any other address, only one that
/// brings the token (in the URL once, then in a cookie). Every request is checked, the WebSocket's
/// upgrade too, and no other site's page may reach the server (no CORS, Origin and Host checked).
struct ServeAccess: Sendable {
    let loopback: Bool
    let token: String?
    let port: Int

    var cookieName: String { "btlens_token_\(port)" }

    enum Verdict: Equatable {
        case allowed
        /// Allowed, and the token given in the URL is to be kept in a cookie.
        case allowedSetCookie
        case refused(String)
    }

    func check(
        path: String, query token: Substring?, cookie: String?, host: String?, origin: String?, fetchSite: String?
    )
        -> Verdict
    {
        // A loopback server answers only to its own names: another site's name that resolves to
        // 127.0.0.1 (DNS rebinding) is refused.
        if loopback && !Self.isLoopbackHost(host) { return .refused("the Host header does not name this machine") }
        if let origin, origin != "null" || path != "/" {
            guard let host, origin == "http://" + host else { return .refused("requests from other sites are refused") }
        }
        if fetchSite == "cross-site" && path != "/" { return .refused("requests from other sites are refused") }
        guard let expected = self.token else { return .allowed }
        if let token, Self.same(String(token), expected) { return path == "/" ? .allowedSetCookie : .allowed }
        if let cookie, Self.same(cookie, expected) { return .allowed }
        return .refused("this server needs its token: open the address btlens printed, with ?token=")
    }

    static func isLoopbackHost(_ host: String?) -> Bool {
        guard var name = host?.lowercased() else { return false }
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            name = String(name[name.index(after: name.startIndex)..<close])
        } else if let colon = name.lastIndex(of: ":") {
            name = String(name[..<colon])
        }
        return isLoopbackAddress(name)
    }

    /// `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8 (not a name that begins with `127.`).
    static func isLoopbackAddress(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }

    /// Compared in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// 128 random bits, as hex.
    static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let v = g.next() as UInt64
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }.joined()
    }

    /// The headers of every answer: the report's content-security policy (the page's own script and
    /// style only, no remote loads, no framing), and nothing cached or sent on as a referrer (the URL
    /// may hold the token).
    static let headers: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        .init("X-Content-Type-Options")!: "nosniff",
        .init("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
    ]
}
