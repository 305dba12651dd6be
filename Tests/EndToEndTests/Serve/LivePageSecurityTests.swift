import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// The live page's server over plain HTTP, no browser: a foreign Host or Origin is refused, off
/// loopback a token is needed (printed in the URL, then a cookie), and every page carries the CSP.
final class LivePageSecurityTests: XCTestCase {
    var servers: [ServedCLI] = []
    var files: [String] = []

    static let csp =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    override func tearDown() {
        for s in servers { s.stopAndCheck() }
        servers = []
        for f in files { unlink(f) }
        files = []
    }

    func serve(_ extra: [String]) throws -> ServedCLI {
        let path = NSTemporaryDirectory() + "serve-security-\(UUID().uuidString).btsnoop"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(SampleCaptures.session().bytes)))
        files.append(path)
        let s = try ServedCLI(["view", path, "--no-open", "--serve"] + extra)
        servers.append(s)
        return s
    }

    func testLivePageLoopbackRefusesForeignHostAndOrigin() throws {
        let s = try serve(["127.0.0.1:0"])
        XCTAssertTrue(s.url.hasPrefix("http://127.0.0.1:"), s.url)
        XCTAssertFalse(s.url.contains("token"), s.url)
        let page = try RawHTTP.get(port: s.port, path: "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("Content-Security-Policy"), Self.csp)
        XCTAssertTrue(page.body.contains("/app.js"))
        for asset in ["/app.js", "/app.css"] {
            let a = try RawHTTP.get(port: s.port, path: asset)
            XCTAssertEqual(a.status, 200, asset)
            XCTAssertEqual(a.header("Content-Security-Policy"), Self.csp, asset)
        }
        // Hummingbird's own answers carry the headers too.
        let missing = try RawHTTP.get(port: s.port, path: "/favicon.ico")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.header("Content-Security-Policy"), Self.csp)
        XCTAssertEqual(try RawHTTP.get(port: s.port, path: "/", host: "localhost:\(s.port)").status, 200)
        for path in ["/", "/app.js", "/events", "/report?format=md&filter="] {
            let evil = try RawHTTP.get(port: s.port, path: path, host: "evil.example")
            XCTAssertEqual(evil.status, 403, "Host: evil.example \(path)")
            let evilPort = try RawHTTP.get(port: s.port, path: path, host: "evil.example:\(s.port)")
            XCTAssertEqual(evilPort.status, 403, "Host: evil.example:PORT \(path)")
            let origin = try RawHTTP.get(port: s.port, path: path, headers: ["Origin": "http://evil.example"])
            XCTAssertEqual(origin.status, 403, "Origin: http://evil.example \(path)")
        }
        // A WebSocket handshake from another site is refused too.
        let ws = try RawHTTP.get(
            port: s.port, path: "/events",
            headers: [
                "Origin": "http://evil.example", "Upgrade": "websocket", "Connection": "Upgrade",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
            ])
        // Refused, not upgraded (the upgrade's refusal is Hummingbird's 400).
        XCTAssertNotEqual(ws.status, 101, "a cross-site WebSocket is not upgraded")
        XCTAssertTrue([400, 403].contains(ws.status), "a cross-site WebSocket: \(ws.status)")
        let report = try RawHTTP.get(port: s.port, path: "/report?format=md&filter=")
        XCTAssertEqual(report.status, 200)
    }

    func testLivePageOffLoopbackNeedsTheToken() throws {
        let s = try serve(["0.0.0.0:0"])
        let components = try XCTUnwrap(URLComponents(string: s.url))
        let token = try XCTUnwrap(components.queryItems?.first(where: { $0.name == "token" })?.value, s.url)
        XCTAssertGreaterThanOrEqual(token.count, 16, s.url)
        XCTAssertEqual(try RawHTTP.get(port: s.port, path: "/").status, 403, "no token")
        XCTAssertEqual(try RawHTTP.get(port: s.port, path: "/?token=wrongwrongwrongwrong").status, 403, "a wrong token")
        XCTAssertEqual(try RawHTTP.get(port: s.port, path: "/app.js").status, 403, "no token for an asset")
        XCTAssertEqual(try RawHTTP.get(port: s.port, path: "/report?format=md&filter=").status, 403, "no token: report")
        // The token is kept in a cookie and taken out of the address: a redirect to the page.
        let entry = try RawHTTP.get(port: s.port, path: "/?token=\(token)")
        XCTAssertEqual(entry.status, 303, "with the token")
        XCTAssertEqual(entry.header("Location"), "/")
        let cookie = try XCTUnwrap(entry.header("Set-Cookie"), "a cookie set")
        XCTAssertTrue(cookie.lowercased().contains("httponly"), cookie)
        XCTAssertTrue(cookie.lowercased().contains("samesite=strict"), cookie)
        let pair = String(cookie.prefix(while: { $0 != ";" }))
        let page = try RawHTTP.get(port: s.port, path: "/", headers: ["Cookie": pair])
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("Content-Security-Policy"), Self.csp)
        XCTAssertEqual(try RawHTTP.get(port: s.port, path: "/app.js", headers: ["Cookie": pair]).status, 200, pair)
        let md = try RawHTTP.get(port: s.port, path: "/report?format=md&filter=", headers: ["Cookie": pair])
        XCTAssertEqual(md.status, 200)
        XCTAssertTrue(md.body.contains("# btlens report"), String(md.body.prefix(100)))
    }

    func testLivePageGivenTokenIsTheOnePrinted() throws {
        let token = "abcdefghijklmnop0123"
        let s = try serve(["0.0.0.0:0", "--token", token])
        XCTAssertTrue(s.url.hasSuffix("?token=\(token)"), s.url)
        XCTAssertEqual(try RawHTTP.get(port: s.port, path: "/?token=\(token)").status, 303)
    }

    /// "Save this view" is `btlens report` with the page's filter, byte for byte.
    func testLivePageReportIsTheReportCommands() throws {
        let s = try serve(["127.0.0.1:0"])
        let path = try XCTUnwrap(files.last)
        for filter in ["", "att && direction == sent"] {
            let query = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let saved = try RawHTTP.get(port: s.port, path: "/report?format=md&filter=\(query)")
            XCTAssertEqual(saved.status, 200, filter)
            let cli = try runCLI(
                ["report", path, "-o", "-", "--format", "md"] + (filter.isEmpty ? [] : ["-Y", filter]),
                cwd: NSTemporaryDirectory())
            XCTAssertEqual(saved.body, cli.stdout, filter)
        }
        let refused = try RawHTTP.get(port: s.port, path: "/report?format=md&filter=att%20%26%26")
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.body.contains("invalid filter"), refused.body)
    }
}
