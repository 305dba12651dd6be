import BTLensCore
import Foundation
import XCTest

/// `btlens follow … --serve` or `btlens view … --serve` in its own process: the address it printed
/// on stderr, and its stop by SIGINT. A watchdog kills it after `hardTimeout` seconds so a hang
/// fails the test instead of stalling the suite.
final class ServedCLI: @unchecked Sendable {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("btlens").path

    let process = Process()
    private(set) var url = ""
    private(set) var port = 0
    private let err = Pipe()
    private let errText = Buffer()
    private var watchdog = DispatchWorkItem {}
    private let stdoutPath: String

    /// Text that a reading thread adds to.
    final class Buffer: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        func add(_ d: Data) {
            lock.lock()
            text += String(decoding: d, as: UTF8.self)
            lock.unlock()
        }
        var value: String {
            lock.lock()
            defer { lock.unlock() }
            return text
        }
    }

    var stderr: String { errText.value }

    init(_ arguments: [String], hardTimeout: Double = 120) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw XCTSkip("btlens is not built beside the tests")
        }
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: NSTemporaryDirectory())
        stdoutPath = NSTemporaryDirectory() + "btlens-serve-stdout-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        // stdout (follow prints the timeline too) goes to a file: an unread pipe would fill and block.
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardInput = FileHandle.nullDevice
        process.standardError = err
        err.fileHandleForReading.readabilityHandler = { [errText] h in
            let d = h.availableData
            if !d.isEmpty { errText.add(d) }
        }
        try process.run()
        let pid = process.processIdentifier
        watchdog = DispatchWorkItem { OS.kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + hardTimeout, execute: watchdog)
        // "btlens: serving http://HOST:PORT/[?token=T] (Ctrl-C stops)"
        let deadline = Date().addingTimeInterval(30)
        var found: String?
        while found == nil && Date() < deadline && process.isRunning {
            found = stderr.split(separator: "\n").first(where: { $0.hasPrefix("btlens: serving ") }).map {
                String($0.dropFirst("btlens: serving ".count).prefix(while: { $0 != " " }))
            }
            if found == nil { usleep(10_000) }
        }
        guard let found, let u = URLComponents(string: found), let port = u.port else {
            OS.kill(pid, SIGKILL)
            throw WebDriver.Failure(description: "btlens printed no address:\n\(stderr)")
        }
        url = found
        self.port = port
    }

    /// The page's address on loopback (the printed one may name the machine, for 0.0.0.0).
    var loopbackURL: String { "http://127.0.0.1:\(port)/" }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// SIGINT, then the exit: the seconds it took and the status, or nil when still running after
    /// `within` seconds (it is then killed).
    func interrupt(within seconds: Double = 1) -> (seconds: Double, status: Int32, reason: Process.TerminationReason)? {
        defer {
            watchdog.cancel()
            err.fileHandleForReading.readabilityHandler = nil
            unlink(stdoutPath)
        }
        guard process.isRunning else {
            return (0, process.terminationStatus, process.terminationReason)
        }
        let start = Date()
        let pid = process.processIdentifier
        OS.kill(pid, SIGINT)
        // Gone (reaped) or a zombie (exited, not yet reaped by Foundation): the exit's time.
        func exited() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true
        }
        while !exited() {
            if Date().timeIntervalSince(start) > seconds {
                OS.kill(pid, SIGKILL)
                return nil
            }
            usleep(5_000)
        }
        let took = Date().timeIntervalSince(start)
        process.waitUntilExit()
        return (took, process.terminationStatus, process.terminationReason)
    }

    /// Stops btlens with SIGINT and checks it exits 0 within a second.
    func stopAndCheck(file: StaticString = #filePath, line: UInt = #line) {
        let r = interrupt(within: 1)
        XCTAssertNotNil(r, "btlens still runs 1 s after SIGINT\n\(stderr)", file: file, line: line)
        guard let r else { return }
        XCTAssertEqual(r.reason, .exit, "btlens exits, is not killed\n\(stderr)", file: file, line: line)
        XCTAssertEqual(r.status, 0, "btlens' exit status after SIGINT\n\(stderr)", file: file, line: line)
    }
}

/// One HTTP/1.1 request over a plain socket, so that any Host or Origin header can be sent.
struct RawHTTP {
    static func contentLength(_ head: ArraySlice<UInt8>) -> Int? {
        for line in String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }

    var status: Int
    var headers: [(String, String)]
    var data: Data
    var body: String { String(decoding: data, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.0.lowercased() == name.lowercased() })?.1
    }

    static func get(port: Int, path: String, headers: [String: String] = [:], host: String? = nil) throws -> RawHTTP {
        try send("GET", port: port, path: path, headers: headers, host: host)
    }

    static func send(
        _ method: String, port: Int, path: String, headers: [String: String] = [:], host: String? = nil,
        body: Data? = nil, timeout: Int = 30
    ) throws -> RawHTTP {
        guard let fd = OS.connectToLoopback(port: UInt16(port), timeout: timeout) else {
            throw WebDriver.Failure(description: "cannot connect to port \(port)")
        }
        defer { OS.close(fd) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n"
        if headers["Connection"] == nil { request += "Connection: close\r\n" }
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        if let body { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8) + (body.map { [UInt8]($0) } ?? [])
        _ = bytes.withUnsafeBytes { OS.write(fd, $0.baseAddress, $0.count) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        // Until the peer closes, or the body its Content-Length gives is whole (chromedriver keeps
        // the connection open whatever the request says).
        while true {
            let n = OS.read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            data += buffer[..<n]
            if let end = data.firstRange(of: [13, 10, 13, 10]), let length = contentLength(data[..<end.lowerBound]),
                data.count - end.upperBound >= length
            {
                break
            }
        }
        guard let split = data.firstRange(of: [13, 10, 13, 10]) else {
            throw WebDriver.Failure(description: "no HTTP answer from port \(port): \(data.count) bytes")
        }
        let head = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        let fields = head.dropFirst().compactMap { line -> (String, String)? in
            guard let c = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<c]), line[line.index(after: c)...].trimmingCharacters(in: .whitespaces))
        }
        var payload = Array(data[split.upperBound...])
        if fields.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") })
        {
            var out: [UInt8] = []
            var i = 0
            while let eol = payload[i...].firstRange(of: [13, 10]),
                let n = Int(String(decoding: payload[i..<eol.lowerBound], as: UTF8.self), radix: 16), n > 0,
                eol.upperBound + n <= payload.count
            {
                out += payload[eol.upperBound..<eol.upperBound + n]
                i = eol.upperBound + n + 2
                if i >= payload.count { break }
            }
            payload = out
        }
        return RawHTTP(status: status, headers: fields, data: Data(payload))
    }
}
