import BTLensCore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// The live page's server (Hummingbird, with its WebSocket upgrade): `GET /` the page and its two
/// assets, all inside the binary; `/events` the timeline as it grows (`LiveSession`); `/report` the
/// view saved as a report. Started from the command's thread, which goes on reading the capture.
public final class LiveServer: Sendable {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        /// Required off loopback (`ServeOptions` makes one up when none is given).
        public var token: String?
        public init(host: String, port: Int, token: String?) {
            self.host = host
            self.port = port
            self.token = token
        }
    }

    /// A report of the view: `format` (html or md) and the filter applied; the bytes and a file name,
    /// or why there is none.
    public typealias ReportMaker =
        @Sendable (_ format: String, _ filter: String) throws -> (bytes: [UInt8], name: String)
    /// A record's details when the hub no longer holds them (`view` decodes the file again).
    public typealias DetailsMaker = @Sendable (_ record: Int) -> RecordDetails?

    let hub: LiveHub
    let options: Options
    let report: ReportMaker
    let details: DetailsMaker?
    private let task = Mutex<Task<Void, Never>?>(nil)

    public init(hub: LiveHub, options: Options, report: @escaping ReportMaker, details: DetailsMaker? = nil) {
        self.hub = hub
        self.options = options
        self.report = report
        self.details = details
    }

    /// Why a report cannot be made: a filter refused (400), or no file to read (409).
    public struct ReportError: Error {
        public var message: String
        public var status: Int
        public init(_ message: String, status: Int) {
            self.message = message
            self.status = status
        }
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
        init(description: String) { self.description = description }
        /// NIO's bind error names its own call: the reason alone is said.
        init(_ error: any Error) {
            let text = "\(error)"
            description =
                text.contains("Address already in use")
                ? "the port is in use" : text.contains("Permission denied") ? "permission denied" : text
        }
    }

    /// Binds and starts serving; the port bound (the one asked for, or the system's choice for 0).
    public func start() throws(StartError) -> Int {
        let bound = Mutex<Result<Int, StartError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let hub = self.hub
        let access = ServeAccess(
            loopback: ServeAccess.isLoopbackAddress(options.host), token: options.token, port: options.port)
        let server = self
        let running = Task.detached {
            let router = Router(context: BasicWebSocketRequestContext.self)
            router.add(middleware: AccessMiddleware(access: access))
            PageRoutes.add(to: router, server: server)
            var logger = Logger(label: "btlens.serve")
            logger.logLevel = .critical
            let app = Application(
                router: router,
                server: .http1WebSocketUpgrade(
                    webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: LiveSession.requestBytes))),
                configuration: .init(
                    address: .hostname(server.options.host, port: server.options.port), serverName: nil),
                onServerRunning: { channel in
                    bound.withLock { $0 = .success(channel.localAddress?.port ?? 0) }
                    ready.signal()
                },
                logger: logger)
            // Each page sends its counts every half second.
            let ticker = Task {
                var ticks = 0
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    hub.tick()
                    // The held events are evicted as new ones come, among the pages' messages: the
                    // heap's free pages between them go back to the system every few seconds.
                    ticks += 1
                    if ticks % 4 == 0 { OS.heapTrim() }
                }
            }
            do { try await app.run() } catch {
                bound.withLock { $0 = $0 ?? .failure(StartError(error)) }
                ready.signal()
            }
            ticker.cancel()
        }
        task.withLock { $0 = running }
        ready.wait()
        switch bound.withLock({ $0 }) {
        case .success(let port): return port
        case .failure(let e): throw e
        case nil: throw StartError(description: "the server did not start")
        }
    }

    public static func newToken() -> String { ServeAccess.newToken() }
    public static func isLoopback(_ host: String) -> Bool { ServeAccess.isLoopbackAddress(host) }

    /// Ends the server and every page's connection.
    public func stop() {
        task.withLock { $0?.cancel() }
    }
}
