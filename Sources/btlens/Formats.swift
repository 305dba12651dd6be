import ArgumentParser
import BTLensCapture
import BTLensReport

struct Formats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats", abstract: "List the capture formats btlens reads (recognised by content).")

    func run() {
        for f in CaptureFormat.supported {
            print("\(f.name.padding(32)) \(f.detail)")
        }
        print("\nlibpcap: \(Libpcap.version)")
    }
}
