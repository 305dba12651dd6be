import ArgumentParser
import BTLensCapture

struct Formats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the capture formats btlens reads (recognised by content).")

    func run() {
        for f in CaptureFormat.supported {
            print("\(f.name.padding(32)) \(f.detail)")
        }
        print("\nlibpcap: \(Libpcap.version)")
    }
}

extension String {
    func padding(_ n: Int) -> String { self + String(repeating: " ", count: max(0, n - count)) }
}
