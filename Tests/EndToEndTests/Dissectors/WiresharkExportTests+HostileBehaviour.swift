import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// The examples that pair by a token (Even G2's protobuf field, Nordic DFU's echoed opcode) on
/// random messages: the plugin raises no Lua error and pairs what btlens pairs. (Frames and
/// diagnostics are not compared: on bytes this wrong btlens says the definition does not fit.)
extension WiresharkExportTests {
    func testRandomTokensAgreeAndRaiseNoLuaError() throws {
        try requireLuaTshark()
        let examples = Self.root.appendingPathComponent("Dissectors/examples")
        let g2 = try DefinitionLoader.load(
            text: String(contentsOf: examples.appendingPathComponent("even-g2.yaml"), encoding: .utf8),
            file: "even-g2.yaml")
        guard case .frames(let format) = g2.framing else { return XCTFail("no frames") }
        var rng = SplitMix(seed: 42)
        func byte() -> UInt8 { UInt8(truncatingIfNeeded: rng.next()) }
        func bytes(_ most: Int) -> [UInt8] { (0..<Int(rng.next() % UInt64(most + 1))).map { _ in byte() } }
        var s = discovered([])
        let opcodes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x06, 0x07, 0x09, 0x60, 0x60, 0x60]
        for i in 0..<300 {
            let direction: Direction = rng.next() % 2 == 0 ? .sent : .received
            let op: UInt8 = direction == .sent ? 0x52 : 0x1b
            if i % 2 == 0 {
                // DFU: an opcode, then a request opcode and result for responses, then anything.
                let first = opcodes[Int(rng.next() % UInt64(opcodes.count))]
                s.att(handle: 0x40, direction, [op, 0x11, 0x00, first] + bytes(16))
            } else {
                // G2: protobuf-like bodies {1: v, 2: id, …} and bytes that are none.
                let body = [0x08, byte() % 8, 0x10, byte() % 16] + bytes(8)
                let command: UInt16 = [0x8000, 0x8001, 0x0620][Int(rng.next() % 3)]
                let frame = format.encode(command: command, sequence: byte(), payload: body)
                s.att(handle: 0x40, direction, [op, 0x13, 0x00] + frame)
            }
        }
        s.disconnect(handle: 0x40)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-tokens-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = folder.appendingPathComponent("tokens.btsnoop").path
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        try export(examples.path)
        let arguments = [
            "--dissectors", examples.path, "--decode-as", "att:0x0011=nordic-dfu", "--decode-as", "att:0x0013=even-g2",
        ]
        let out = try tshark(
            ["-X", "lua_script:\(plugin)", "-r", capture, "-2", "-R", "frame", "-V"] + [
                "-d", "btatt.handle==0x0011,nordic_dfu", "-d", "btatt.handle==0x0013,even_g2",
            ])
        XCTAssertFalse(out.contains { $0.contains("Lua Error") })
        let decodeAs = ["-d", "btatt.handle==0x0011,nordic_dfu", "-d", "btatt.handle==0x0013,even_g2"]
        var (mine, theirs): ([String], [String]) = ([], [])
        for name in ["nordic-dfu", "even-g2"] {
            let both = try pairs(capture, name, arguments, decodeAs: decodeAs)
            (mine, theirs) = (both.btlens, theirs + both.tshark)
        }
        XCTAssertGreaterThan(mine.count, 10)
        XCTAssertEqual(theirs.sorted(), mine.sorted())
    }
}
