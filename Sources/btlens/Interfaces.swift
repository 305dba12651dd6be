import ArgumentParser
import BTLensCapture

struct Interfaces: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interfaces",
        abstract: "List the interfaces libpcap can capture from, Bluetooth ones first (for btlens follow --interface).")

    func run() throws {
        let all: [(name: String, detail: String, bluetooth: Bool)]
        do {
            all = try Libpcap.interfaces()
        } catch {
            throw InputFailure(message: "\(error)")
        }
        let bluetooth = all.filter(\.bluetooth)
        if bluetooth.isEmpty {
            print(
                "no Bluetooth interface: on Linux, bluetooth-monitor appears when the kernel has Bluetooth and a controller (or hci_vhci); capturing needs root or CAP_NET_RAW"
            )
        }
        for i in all { print("\(i.name.padding(24)) \(i.bluetooth ? "Bluetooth  " : "           ")\(i.detail)") }
    }
}
