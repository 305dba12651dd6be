import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFilter
import BTLensReport
import BTLensServe
import Foundation

/// `--serve [HOST:]PORT` and `--token`: the live page (docs/serve.md).
struct ServeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve the live page in a browser at [HOST:]PORT: 127.0.0.1 unless a host is given (any other needs a token); PORT 0 takes a free one.",
            valueName: "[HOST:]PORT"))
    var serve: String?

    @Option(help: "The token a browser must bring when serving off loopback (made up and printed when not given).")
    var token: String?

    func validate() throws { try Self.check(serve: serve, token: token) }

    static func check(serve: String?, token: String?) throws {
        if let serve, address(serve) == nil {
            throw ValidationError("--serve \(serve): expected PORT or HOST:PORT (PORT 0 to 65535)")
        }
        if token != nil && serve == nil { throw ValidationError("--token goes with --serve") }
        if let token, token.count < 16 || !token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            throw ValidationError("--token: use at least 16 letters and digits")
        }
    }

    /// `8080`, `0.0.0.0:8080`, `[::1]:8080`.
    static func address(_ s: String) -> (host: String, port: Int)? {
        if let port = Int(s), (0...65535).contains(port) { return ("127.0.0.1", port) }
        guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]),
            (0...65535).contains(port), colon > s.startIndex
        else { return nil }
        var host = String(s[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}

/// Starting the page's server for `follow --serve` and `view`, and saying where it is.
enum LivePage {
    static func start(
        _ hub: LiveHub, at address: String, token given: String?,
        report: @escaping LiveServer.ReportMaker, details: LiveServer.DetailsMaker? = nil
    ) throws -> (LiveServer, url: String) {
        guard let (host, port) = ServeOptions.address(address) else {
            throw UsageFailure(message: "--serve \(address): expected PORT or HOST:PORT")
        }
        let token = given ?? (LiveServer.isLoopback(host) ? nil : LiveServer.newToken())
        let server = LiveServer(
            hub: hub, options: .init(host: host, port: port, token: token), report: report, details: details)
        let bound: Int
        do { bound = try server.start() } catch {
            throw InputFailure(message: "cannot serve at \(address): \(error)")
        }
        let shown =
            host == "0.0.0.0" || host == "::"
            ? ProcessInfo.processInfo.hostName : host.contains(":") ? "[\(host)]" : host
        let url = "http://\(shown):\(bound)/" + (token.map { "?token=\($0)" } ?? "")
        FileHandleStderr.write("btlens: serving \(url) (Ctrl-C stops)\n")
        return (server, url)
    }

    /// "save this view": the capture's report with the page's filter, from its file.
    static func reportMaker(
        path: String?, member: String?, _ configuration: Configuration, definitions: DefinitionSources?
    ) -> LiveServer.ReportMaker {
        { format, filter in
            var options = ReportBuilder.Options()
            options.definitions = definitions
            // A filter refused is said first (400): it is wrong whatever the input.
            if !filter.allSatisfy(\.isWhitespace) {
                guard filter.count <= LiveHub.filterCharacters else {
                    throw LiveServer.ReportError(
                        "the filter is longer than \(LiveHub.filterCharacters) characters", status: 400)
                }
                do { _ = try DisplayFilter(filter) } catch { throw LiveServer.ReportError("\(error)", status: 400) }
                options.filter = filter
            }
            guard let path else {
                throw LiveServer.ReportError(
                    "a report is read from a file, and this input is a stream (follow --write FILE keeps one)",
                    status: 409)
            }
            // As `report` decodes it: the page's lower layers are no part of a report.
            var plain = configuration
            plain.lowerLayers = false
            let report: Report
            do {
                var reader = try openCapture(path, member: member, archiveBytes: configuration.limits.archiveBytes)
                (report, _) = try ReportCommand.build(&reader, file: path, plain, options: options)
            } catch let failure as InputFailure {
                throw LiveServer.ReportError(failure.message, status: 409)
            }
            var bytes: [UInt8] = []
            ReportCommand.emit(report, as: format == "md" ? .md : .html) { bytes += $0 }
            let base = path.split(separator: "/").last.map(String.init) ?? "capture"
            let safe = String(base.map { c -> Character in c.isLetter || c.isNumber || ".-_".contains(c) ? c : "_" })
            return (bytes, "btlens-report-\(safe).\(format)")
        }
    }

    /// `follow --serve`'s page, started; nil without `--serve`.
    static func following(
        _ options: ServeOptions, name: String, reportFrom path: String?, _ configuration: Configuration,
        _ definitions: DefinitionSources?
    ) throws -> (server: LiveServer, publisher: LivePublisher)? {
        guard let address = options.serve else { return nil }
        let hub = LiveHub(mode: .follow, source: name, reports: path != nil)
        let (server, _) = try start(
            hub, at: address, token: options.token,
            report: reportMaker(path: path, member: nil, configuration, definitions: definitions))
        return (server, LivePublisher(hub))
    }

    /// The input has ended or was stopped: the page stays up until Ctrl-C.
    static func end(_ page: (server: LiveServer, publisher: LivePublisher), _ stop: StopFlag) {
        page.publisher.finish(stopped: stop.isSet)
        if !stop.isSet {
            FileHandleStderr.write("btlens: still serving (Ctrl-C stops)\n")
            waitForStop(stop)
        }
        page.server.stop()
    }

    /// Blocks until Ctrl-C (or SIGTERM), the page still served.
    static func waitForStop(_ stop: StopFlag) {
        while !stop.isSet { OS.sleep(microseconds: 50_000) }
    }
}
