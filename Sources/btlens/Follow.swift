import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensServe
import Foundation

/// Set by SIGINT and SIGTERM: the follow stops cleanly.
let followStop = StopFlag()

struct Follow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract:
            "Follow a live capture: a growing file, a stream on stdin, btsnoop_net over TCP, or a libpcap interface.",
        discussion: """
            Prints the timeline of what is already there, then each event as its record completes. A followed file that is truncated or replaced (Android rotates btsnoop_hci.log to .last), or a connection made again, is said and followed anew: a follow.restart note in the timeline, after which record numbers and seconds start again; a file that does not exist yet is waited for. Ctrl-C (or SIGTERM) stops within a second, prints a summary and exits 0; a second Ctrl-C ends at once.

              Android, file:        adb shell su -c 'tail -c +0 -f /data/misc/bluetooth/logs/btsnoop_hci.log' | btlens follow -
              Android, btsnoop_net: adb forward tcp:8872 tcp:8872 && btlens follow --connect localhost:8872
              iOS:                  idevicebtlogger - | btlens follow -
              Linux:                btlens follow --interface bluetooth-monitor   (or: tcpdump -i bluetooth-monitor -w - | btlens follow -)
            """)

    @Argument(
        help:
            "The capture file to follow, or - for stdin (btsnoop, pklg, pcap or pcapng, sniffed from the first bytes).")
    var file: String?

    @Option(
        help: "Read a btsnoop stream from TCP (Android's btsnoop_net), reconnecting when the peer goes away: HOST:PORT."
    )
    var connect: String?

    @Option(help: "Capture live from a libpcap interface (bluetooth-monitor, bluetooth0; see btlens interfaces).")
    var interface: String?

    @Option(help: "Keep every record received in this file (.btsnoop, .pcap, .pcapng), flushed as it arrives.")
    var write: String?

    @OptionGroup var decoding: DecodingOptions
    var decodeAs: [DecodeAs] { decoding.decodeAs }
    var definitions: DefinitionOptions { decoding.definitions }
    var limitOptions: LimitOptions { decoding.limitOptions }
    var keyOptions: KeyOptions { decoding.keyOptions }

    @Option(help: "Output format: text or jsonl.")
    var format: Timeline.Format = .text

    @Flag(name: .shortAndLong, help: "Also show the lower layers (HCI framing, ACL, L2CAP), indented.")
    var verbose = false

    @Option(help: "Colour: auto (only on a terminal), always, never.")
    var color: ColorChoice = .auto

    @OptionGroup var throttleOptions: ThrottleOptions

    @OptionGroup var filterOption: FilterOption

    @OptionGroup var appLog: AppLogOptions

    @OptionGroup var serveOptions: ServeOptions

    func validate() throws {
        let sources = [file != nil, connect != nil, interface != nil].filter { $0 }.count
        guard sources == 1 else {
            throw ValidationError("name one input: a FILE, - for stdin, --connect HOST:PORT or --interface NAME")
        }
        if let connect, Self.endpoint(connect) == nil {
            throw ValidationError("--connect \(connect): expected HOST:PORT")
        }
        if let write, CaptureWriter.Format(rawValue: pathExtension(write)) == nil {
            throw ValidationError("--write \(write): use a .btsnoop, .pcap or .pcapng name")
        }
    }

    static func endpoint(_ s: String) -> (String, UInt16)? {
        guard let colon = s.lastIndex(of: ":"), let port = UInt16(s[s.index(after: colon)...]), colon > s.startIndex
        else { return nil }
        return (String(s[..<colon]), port)
    }

    func run() throws {
        let table = try CaptureInput.dissectors(definitions, decodeAs: decodeAs)
        let merger = try appLog.merger(live: true, capture: file)
        let input: Follower.Input
        if let connect, let (host, port) = Self.endpoint(connect) {
            input = .connect(host: host, port: port)
        } else if let interface {
            input = .interface(interface)
        } else {
            input = file == "-" ? .descriptor(0) : .file(file ?? "")
        }
        // Made before a handler can run: a global's first use allocates, which a handler must not.
        _ = followStop.isSet
        // Every wait polls the stop flag's pipe, so no call needs interrupting: reads restart
        // (libpcap would report an interrupted one as an error). A second signal ends btlens at once.
        OS.handle([SIGINT, SIGTERM], restart: true, once: true) { _ in followStop.set() }
        let live = LiveOutput(
            format: format, verbose: verbose, color: color.enabled, status: OS.isatty(1) && OS.isatty(2),
            throttle: throttleOptions.throttle(try limitOptions.limits()), filter: filterOption.filter(),
            logNames: merger?.names ?? [:])
        let keep = write.map { path in
            (path: path, format: CaptureWriter.Format(rawValue: pathExtension(path)) ?? .pcapng)
        }
        // The page's details show each record's lower layers.
        var configuration = Configuration(
            decodeAs: decodeAs, dissectors: table, lowerLayers: verbose || serveOptions.serve != nil,
            limits: try limitOptions.limits())
        configuration.linkLayerKeys = try keyOptions.linkLayerKeys()
        let follower = Follower(input, stop: followStop, configuration, keep: keep)
        let name = file ?? connect ?? interface ?? "input"
        // A report is read from a file: the followed one, or the one --write keeps.
        let page = try LivePage.following(
            serveOptions, name: name, reportFrom: write ?? (file == "-" ? nil : file), configuration, table.sources)
        live.page = page?.publisher
        follower.onRecord = { live.record($0) }
        let shown = live.event
        // The app's logs merge in as the capture and they grow: on each event, and while the
        // capture is quiet (every wait of the follow calls the stop flag's idle hook).
        var logFailure: (any Error)?
        let show: (Event) -> Void
        if let merger {
            show = { e in
                guard logFailure == nil else { return shown(e) }
                do { try merger.event(e, shown) } catch { logFailure = error }
            }
            followStop.setIdle {
                guard logFailure == nil else { return }
                do { try merger.idle(shown) } catch { logFailure = error }
            }
        } else {
            show = shown
        }
        // Said first, as in timeline: which definition files were loaded from where.
        var loaded: DefinitionSources? = table.sources
        follower.onEvent = { e in
            if let note = loaded.take() { show(note.note(record: e.record, timestamp: e.timestamp)) }
            show(e)
        }
        follower.onProblem = { reportProblem(name, $0) }
        follower.onNote = { live.note($0) }
        follower.onRestart = { live.restart($0) }
        do {
            try follower.run()
        } catch .cannotOpen(let path, let reason) {
            // As timeline says it.
            throw InputFailure(message: "cannot open \(path): \(reason)")
        } catch {
            throw InputFailure(message: "\(name): \(error)")
        }
        if let merger, logFailure == nil {
            do { try merger.finish(shown) } catch { logFailure = error }
        }
        if let logFailure { live.note("\(logFailure)") }
        // The kept file's first failed write (a full disk) is the run's error, not a count of records kept.
        let lost = follower.writer?.close()
        let kept = follower.writer.map { "\($0.written) records kept in \(write ?? "")" }
        live.finish(stopped: followStop.isSet, written: lost == nil ? kept : nil)
        if let page { LivePage.end(page, followStop) }
        if let lost, let write { throw StandardOutput.cannotWrite(write, lost) }
    }
}
