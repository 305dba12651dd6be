import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensServe
import Foundation

struct View: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Open a capture in the browser: the timeline, filters, packet details and sequence chart.",
        discussion: """
            Serves one page on this machine (127.0.0.1, a free port unless --serve names one) and opens it in the browser where one can be opened; the address is printed either way. The page reads the capture as it is decoded: a page that joins late, or a filter typed in it, gets the events the server holds (the newest 64 MiB), and a packet's details are decoded again from the file when they are no longer held. Ctrl-C stops (docs/serve.md).

              btlens view Captures/ble_a5_faults.btsnoop
              btlens view capture.pcapng --serve 0.0.0.0:8642      (another machine: a token is printed)
            """)

    @OptionGroup var input: CaptureInput

    @Option(
        help: ArgumentHelp(
            "Where to serve: [HOST:]PORT (default 127.0.0.1 and a free port; any other host needs a token).",
            valueName: "[HOST:]PORT"))
    var serve = "127.0.0.1:0"

    @Option(help: "The token a browser must bring when serving off loopback (made up and printed when not given).")
    var token: String?

    @Flag(help: "Do not open a browser; only print the address.")
    var noOpen = false

    func validate() throws {
        try ServeOptions.check(serve: serve, token: token)
    }

    func run() throws {
        let dissectors = try input.dissectors()
        let configuration = try input.configuration(dissectors, lowerLayers: true)
        var reader = try input.open()
        let hub = LiveHub(mode: .view, source: input.file, reports: input.file != "-")
        let (file, member) = (input.file, input.member)
        var details: LiveServer.DetailsMaker?
        if file != "-" {
            // One reading of the file at a time, however many clicks a page sends.
            let oneAtATime = NSLock()
            details = { record in
                oneAtATime.lock()
                defer { oneAtATime.unlock() }
                guard var again = try? openCapture(file, member: member) else { return nil }
                return try? RecordDetails.decode(&again, configuration, record: record)
            }
        }
        _ = followStop.isSet
        OS.handle([SIGINT, SIGTERM], restart: true, once: true) { _ in followStop.set() }
        let (server, url) = try LivePage.start(
            hub, at: serve, token: token,
            report: LivePage.reportMaker(
                path: file == "-" ? nil : file, member: member, configuration, definitions: dissectors.sources),
            details: details)
        if !noOpen && !Browser.open(url) {
            FileHandleStderr.write("btlens: no browser to open here: open the address above in one\n")
        }
        let publisher = LivePublisher(hub)
        publisher.stopping = { followStop.isSet }
        // Said first, as in timeline: which definition files were loaded from where.
        var loaded: DefinitionSources? = dissectors.sources
        let decoded = try Pipeline.run(
            &reader, configuration, onRecord: publisher.record, onProblem: { reportProblem(file, $0) },
            onEvent: { e in
                if let note = loaded.take() { publisher.event(note.note(record: e.record, timestamp: e.timestamp)) }
                publisher.event(e)
            })
        publisher.finish(stopped: false)
        FileHandleStderr.write(
            "btlens: \(file): \(Plural.of(hub.recordsSeen, "record")) decoded; still serving (Ctrl-C stops)\n")
        _ = decoded
        LivePage.waitForStop(followStop)
        server.stop()
    }
}

/// Opens a page in the user's browser where there is one: macOS's `open`, a Linux desktop's `xdg-open`.
enum Browser {
    /// Whether a browser was asked to open it.
    static func open(_ url: String) -> Bool {
        #if os(macOS)
        let opener = "/usr/bin/open"
        #else
        let env = ProcessInfo.processInfo.environment
        guard env["DISPLAY"] != nil || env["WAYLAND_DISPLAY"] != nil else { return false }
        let opener = "/usr/bin/xdg-open"
        #endif
        guard FileManager.default.isExecutableFile(atPath: opener) else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: opener)
        p.arguments = [url]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        return (try? p.run()) != nil
    }
}
