import BTLensCore
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small W3C WebDriver client: chromedriver (Debian's chromium-driver) in its own process,
/// driving a headless chromium. Only what the live page's tests need: sessions, navigation, CSS
/// look-ups, text and attributes, clicks, keys, scripts and screenshots.
final class WebDriver {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    static let chromedriver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]

    let process = Process()
    let base: URL
    let browser: String
    private var profiles: [URL] = []

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts chromedriver on a free loopback port and waits until it answers; skips the test when
    /// chromium or chromedriver is not installed.
    init() async throws {
        let fm = FileManager.default
        guard let browser = Self.chromium.first(where: fm.isExecutableFile) else {
            throw XCTSkip("chromium is not installed")
        }
        guard let driver = Self.chromedriver.first(where: fm.isExecutableFile) else {
            throw XCTSkip("chromedriver (chromium-driver) is not installed")
        }
        guard let (fd, port) = OS.listenOnLoopback() else { throw Failure(description: "no free port") }
        OS.close(fd)
        self.browser = browser
        base = URL(string: "http://127.0.0.1:\(port)")!
        process.executableURL = URL(fileURLWithPath: driver)
        process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        var last = ""
        while Date() < deadline {
            do {
                let status = try await request("GET", "/status", timeout: 2)
                if (status["value"] as? [String: Any])?["ready"] as? Bool == true { return }
                last = "\(status)"
            } catch { last = "\(error)" }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        quit()
        throw Failure(description: "chromedriver did not answer on port \(port) within 20 s: \(last)")
    }

    /// Ends chromedriver (its browsers end with it) and removes the profiles.
    func quit() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { OS.kill(process.processIdentifier, SIGKILL) }
        }
        for p in profiles { try? FileManager.default.removeItem(at: p) }
    }

    deinit { quit() }

    /// A new headless browser, its own profile in a temporary folder.
    func session() async throws -> Session {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-chromium-\(UUID())")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        profiles.append(profile)
        let options: [String: Any] = [
            "binary": browser,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                "--user-data-dir=\(profile.path)", "--disable-dev-shm-usage", "--no-first-run",
            ],
        ]
        let body: [String: Any] = [
            "capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]
        ]
        let answer = try await request("POST", "/session", body, timeout: 60)
        guard let value = answer["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            throw Failure(description: "no session: \(answer)")
        }
        return Session(driver: self, id: id)
    }

    /// One WebDriver command; a W3C error answer is thrown.
    @discardableResult
    func request(_ method: String, _ path: String, _ body: [String: Any]? = nil, timeout: Double = 30) async throws
        -> [String: Any]
    {
        var r = URLRequest(url: URL(string: base.absoluteString + path)!)
        r.httpMethod = method
        r.timeoutInterval = timeout
        if let body {
            r.httpBody = try JSONSerialization.data(withJSONObject: body)
            r.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        }
        let (data, _) = try await HTTP.send(r)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(description: "\(method) \(path): not a JSON object")
        }
        if let value = object["value"] as? [String: Any], let error = value["error"] as? String {
            throw Failure(description: "\(method) \(path): \(error): \(value["message"] ?? "")")
        }
        return object
    }

    /// One browser (a WebDriver session).
    final class Session {
        static let elementKey = "element-6066-11e4-a52e-4f735466cecf"
        let driver: WebDriver
        let id: String
        private var deleted = false

        init(driver: WebDriver, id: String) {
            self.driver = driver
            self.id = id
        }

        @discardableResult
        func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
            try await driver.request(method, "/session/\(id)" + path, body)["value"] ?? nil
        }

        func navigate(_ url: String) async throws { try await command("POST", "/url", ["url": url]) }

        /// The first element `css` selects (an error when none).
        func find(_ css: String) async throws -> String {
            let v = try await command("POST", "/element", ["using": "css selector", "value": css])
            guard let e = v as? [String: Any], let id = e[Self.elementKey] as? String else {
                throw Failure(description: "no element \(css)")
            }
            return id
        }

        func findAll(_ css: String) async throws -> [String] {
            let v = try await command("POST", "/elements", ["using": "css selector", "value": css])
            return (v as? [[String: Any]] ?? []).compactMap { $0[Self.elementKey] as? String }
        }

        func text(_ element: String) async throws -> String {
            try await command("GET", "/element/\(element)/text") as? String ?? ""
        }

        func attribute(_ element: String, _ name: String) async throws -> String? {
            try await command("GET", "/element/\(element)/attribute/\(name)") as? String
        }

        func click(_ element: String) async throws { try await command("POST", "/element/\(element)/click", [:]) }

        func clear(_ element: String) async throws { try await command("POST", "/element/\(element)/clear", [:]) }

        /// Types `text` into the element; "\u{E007}" is Enter.
        func sendKeys(_ element: String, _ text: String) async throws {
            try await command("POST", "/element/\(element)/value", ["text": text])
        }

        /// Runs `script` (a function body) in the page and returns what it returns.
        func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
            try await command("POST", "/execute/sync", ["script": script, "args": arguments])
        }

        /// A PNG of the window.
        func screenshot() async throws -> Data {
            guard let b64 = try await command("GET", "/screenshot") as? String, let d = Data(base64Encoded: b64) else {
                throw Failure(description: "no screenshot")
            }
            return d
        }

        func delete() async {
            guard !deleted else { return }
            deleted = true
            _ = try? await driver.request("DELETE", "/session/\(id)")
        }

        /// Evaluates `script` every 50 ms until it returns true; the seconds it took, or nil after `timeout`.
        func waitFor(_ script: String, timeout: Double = 10) async throws -> Double? {
            let start = Date()
            while true {
                if try await execute(script) as? Bool == true { return Date().timeIntervalSince(start) }
                if Date().timeIntervalSince(start) > timeout { return nil }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }

        /// The texts of the timeline's shown rows, top to bottom, with their records.
        func rows() async throws -> [(record: String, text: String)] {
            let v = try await execute(
                """
                return Array.from(document.querySelectorAll('#timeline .row:not([hidden])'))
                  .map(r => [r.getAttribute('data-record') || '', r.textContent]);
                """)
            return (v as? [[String]] ?? []).map { ($0[0], $0[1]) }
        }
    }
}

/// HTTP over a plain socket (FoundationNetworking's URLSession failed here with "Failed writing
/// header" on loopback).
enum HTTP {
    static func send(_ request: URLRequest) async throws -> (Data, RawHTTP) {
        guard let url = request.url, let port = url.port else { throw WebDriver.Failure(description: "no port") }
        let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        var headers: [String: String] = [:]
        for (k, v) in request.allHTTPHeaderFields ?? [:] { headers[k] = v }
        let r = try await Task.detached {
            try RawHTTP.send(
                request.httpMethod ?? "GET", port: port, path: path, headers: headers, body: request.httpBody,
                timeout: Int(request.timeoutInterval))
        }.value
        return (r.data, r)
    }
}
