import Foundation
import HummingbirdWebSocket

/// One page's WebSocket: the hub's lines written as the page can take them, while the page's
/// requests (a filter, a record's details) are read beside them.
struct LiveSession {
    let hub: LiveHub
    let details: LiveServer.DetailsMaker?
    /// A request is one small JSON object; anything longer is not the page's.
    static let requestBytes = 16 << 10

    func run(filter: String, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async {
        let reader = hub.join(filter: filter)
        defer { hub.leave(reader) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while let message = await hub.next(reader) {
                    do { try await outbound.write(.text(message)) } catch { break }
                }
                hub.close(reader)
            }
            do {
                for try await message in inbound.messages(maxSize: Self.requestBytes) {
                    guard case .text(let text) = message else { continue }
                    await request(text, reader)
                }
            } catch {}
            hub.close(reader)
            await group.waitForAll()
        }
    }

    private func request(_ text: String, _ reader: Int) async {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        if let filter = object["filter"] as? String {
            hub.setFilter(filter, for: reader)
        } else if let record = (object["details"] as? NSNumber)?.intValue {
            hub.send(LiveMessages.details(await details(record)), to: reader)
        }
    }

    /// Held by the hub, or decoded again (off the server's threads: it reads the file), or why not.
    private func details(_ record: Int) async -> RecordDetails {
        if let held = hub.details(record) { return held }
        if record >= 1, record <= hub.recordsSeen, let details {
            if let again = await LiveSession.onThread({ details(record) }) { return again }
        }
        let why =
            record < 1 || record > hub.recordsSeen
            ? "there is no record #\(record) (yet)"
            : "record #\(record)'s layers are no longer held: the server keeps the newest records' (btlens timeline FILE --verbose -Y 'record == \(record)')"
        return RecordDetails(record: record, bytes: [], originalLength: 0, note: why)
    }

    /// `work` on a thread of its own, so that a long one holds none of the server's.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in
            Thread.detachNewThread { c.resume(returning: work()) }
        }
    }
}
