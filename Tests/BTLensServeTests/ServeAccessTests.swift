import XCTest

@testable import BTLensServe

/// Who may read the page (docs/serve.md): this machine's names on loopback, no other site's page,
/// and off loopback the token, given once in the URL, then carried by the cookie.
final class ServeAccessTests: XCTestCase {
    let local = ServeAccess(loopback: true, token: nil, port: 8642)
    let remote = ServeAccess(loopback: false, token: "0123456789abcdef0123456789abcdef", port: 8642)

    func check(
        _ a: ServeAccess, path: String = "/", token: Substring? = nil, cookie: String? = nil,
        host: String? = "127.0.0.1:8642", origin: String? = nil, site: String? = nil
    ) -> ServeAccess.Verdict {
        a.check(path: path, query: token, cookie: cookie, host: host, origin: origin, fetchSite: site)
    }

    func testLoopbackAnswersOnlyToItsOwnNames() {
        XCTAssertEqual(check(local), .allowed)
        XCTAssertEqual(check(local, host: "localhost:8642"), .allowed)
        XCTAssertEqual(check(local, host: "[::1]:8642"), .allowed)
        // DNS rebinding: another site's name that resolves here.
        XCTAssertEqual(check(local, host: "evil.example:8642"), .refused("the Host header does not name this machine"))
        XCTAssertEqual(check(local, host: nil), .refused("the Host header does not name this machine"))
        XCTAssertEqual(
            check(local, host: "127.0.0.1.evil.example"), .refused("the Host header does not name this machine"))
        XCTAssertEqual(check(local, host: "127.0.0.300"), .refused("the Host header does not name this machine"))
    }

    func testOtherSitesAreRefused() {
        XCTAssertEqual(check(local, path: "/events", origin: "http://127.0.0.1:8642"), .allowed)
        XCTAssertEqual(
            check(local, path: "/events", origin: "http://evil.example"),
            .refused("requests from other sites are refused"))
        XCTAssertEqual(
            check(local, path: "/report", site: "cross-site"), .refused("requests from other sites are refused"))
        // A link from elsewhere may open the page itself.
        XCTAssertEqual(check(local, path: "/", site: "cross-site"), .allowed)
    }

    func testOffLoopbackTheTokenIsNeededOnEveryRequest() {
        let token: Substring = "0123456789abcdef0123456789abcdef"
        XCTAssertEqual(check(remote, token: token, host: "lab:8642"), .allowedSetCookie)
        XCTAssertEqual(check(remote, path: "/app.js", cookie: String(token), host: "lab:8642"), .allowed)
        XCTAssertEqual(check(remote, path: "/events", token: token, host: "lab:8642"), .allowed)
        for wrong: Substring? in [nil, "0123456789abcdef0123456789abcdee", "0123", ""] {
            guard case .refused = check(remote, token: wrong, host: "lab:8642") else {
                return XCTFail("\(wrong ?? "none") let in")
            }
        }
    }

    func testTokensAreLongAndFresh() {
        let a = ServeAccess.newToken()
        XCTAssertEqual(a.count, 32)
        XCTAssertTrue(a.allSatisfy(\.isHexDigit))
        XCTAssertNotEqual(a, ServeAccess.newToken())
    }
}
