import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// `span-values: false`: a framing whose frames each fill one value (Bose BMAP's packets, no magic
/// and no checksum). Bytes a value leaves are junk once the next begins, in btlens and the plugin.
extension WiresharkExportTests {
    static let unspannedDefinition = """
        protocol: bmap-like
        bind:
          characteristics:
            - {uuid: fff1, role: command}
            - {uuid: fff2, role: event}
        framing:
          magic: none
          header: [{command: u2be}, flags, length]
          span-values: false
        messages:
          - {id: 0x0202, name: GetBattery, from: phone}
          - {id: 0x0202, name: Battery, from: accessory, seq: [{id: level, type: u1, unit: "%"}]}
        """

    func testFramesThatDoNotSpanValuesAgreeWithTheExportedPlugin() throws {
        let (folder, capture) = try definitionsFolder(["bmap-like.yaml": Self.unspannedDefinition]) { _ in
            var s = discovered(["fff1", "fff2"])
            // A request, two junk bytes (shorter than a header), the answer, a frame cut short, another.
            let values: [(UInt16, Direction, [UInt8])] = [
                (0x11, .sent, [0x02, 0x02, 0x01, 0x00]), (0x13, .received, [0x13, 0x37]),
                (0x13, .received, [0x02, 0x02, 0x03, 0x01, 0x55]), (0x13, .received, [0x02, 0x02, 0x03, 0x05, 0x55]),
                (0x13, .received, [0x02, 0x02, 0x03, 0x01, 0x56]),
            ]
            for (handle, direction, value) in values {
                s.att(handle: 0x40, direction, [direction == .sent ? 0x52 : 0x1b, UInt8(handle), 0x00] + value)
            }
            s.disconnect(handle: 0x40)
            return s.bytes
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--dissectors", folder.path]
        let all = try events(capture, arguments)
        XCTAssertEqual(
            all.filter { $0["dissector"] as? String == "bmap-like" && $0["fields"] != nil }.compactMap {
                ($0["fields"] as? [String: Any])?["level"].map { "\($0)" }
            }.count, 2)
        XCTAssertEqual(
            all.filter { $0["id"] as? String == "a5.resync" }.compactMap { $0["message"] as? String },
            [
                "bmap-like: skipped 2 bytes that do not form a frame, before the frame with command 0x202: "
                    + "expected a frame to end in the value it began in, found the value ended first",
                "bmap-like: skipped 5 bytes that do not form a frame, before the frame with command 0x202: "
                    + "expected a frame to end in the value it began in, found the value ended first",
            ])
        try requireLuaTshark()
        try export(folder.appendingPathComponent("bmap-like.yaml").path)
        XCTAssertGreaterThanOrEqual(try compare(capture, ["bmap-like"], arguments), 5)
    }
}
