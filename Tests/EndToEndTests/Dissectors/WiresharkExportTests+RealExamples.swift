import Foundation
import XCTest

/// Examples written for a real capture of ../shared/captures, in btlens and the exported plugin.
extension WiresharkExportTests {
    /// Chsmartbulb (Dissectors/examples/chsmartbulb.yaml): an 8-byte text preamble, then frames
    /// whose length counts the whole frame; each GetStatus answered. Bound by hand, RFCOMM channel 2
    /// (DLCI 4).
    func testChsmartbulbOnItsCaptureInBothTools() throws {
        let capture = RealCaptureConformanceTests.shared.appendingPathComponent("chsmartbulb_btsnoop_hci.log").path
        try XCTSkipUnless(FileManager.default.fileExists(atPath: capture), "../shared/captures is absent")
        let definition = Self.root.appendingPathComponent("Dissectors/examples/chsmartbulb.yaml").path
        let arguments = ["--dissectors", definition, "--decode-as", "rfcomm:2=chsmartbulb"]
        let all = try events(capture, arguments)
        XCTAssertEqual(
            all.compactMap { $0["id"] as? String }.filter { $0.hasPrefix("a5.") },
            ["a5.preamble", "a5.request.unanswered"])
        XCTAssertEqual(all.filter { $0["dissector"] as? String == "chsmartbulb" && $0["fields"] != nil }.count, 45)
        try requireLuaTshark()
        try export(definition)
        let (mine, theirs) = try pairs(
            capture, "chsmartbulb", arguments, decodeAs: ["-d", "btrfcomm.dlci==4,chsmartbulb"])
        XCTAssertEqual(mine.count, 20)
        XCTAssertEqual(theirs, mine)
    }
}
