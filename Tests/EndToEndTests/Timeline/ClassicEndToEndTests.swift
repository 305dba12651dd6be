import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import XCTest

final class ClassicEndToEndTests: XCTestCase {
    func packet(_ control: UInt8, _ psn: UInt8, _ session: UInt8, _ payload: [UInt8] = []) -> [UInt8] {
        IAP2LinkPacket.encode(control: control, psn: psn, pan: 0, session: session, payload: payload)
    }

    /// The accessory's side of an iAP2 link: SYN (1 control, 2 EA), identification with protocol 1,
    /// then EA session 9 data holding two A5 frames (whose start was not captured: still framed).
    var accessoryStream: [UInt8] {
        let lsp: [UInt8] = [1, 8, 0x04, 0x00, 0x03, 0xe8, 0x00, 0x32, 0x1e, 0x04, 1, 0, 1, 2, 2, 1]
        let group: [UInt8] = [0, 5, 0, 0, 1] + [0, 8, 0, 1] + Array("com.x\0".utf8).prefix(4)
        let ident: [UInt8] =
            [0x40, 0x40, 0, UInt8(6 + 4 + group.count), 0x1d, 0x01, 0, UInt8(4 + group.count), 0, 10] + group
        let frames =
            Frame.encode(command: 0x90, sequence: 1, payload: [1, 2, 3])
            + Frame.encode(command: 0x91, sequence: 2, payload: [])
        return packet(0x80, 1, 0, lsp) + packet(0x40, 2, 1, ident) + packet(0x40, 3, 2, [0x00, 0x09] + frames)
    }

    func capture(split: Int?, setup: Bool) -> [UInt8] {
        var s = LESession()
        s.connectBREDR(handle: 0x0d, address: [1, 2, 3, 4, 5, 6])
        if setup {
            s.l2cap(handle: 0x0d, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00])
            s.l2cap(
                handle: 0x0d, .received, cid: 0x0001,
                [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        }
        let bytes = setup ? accessoryStream : Array(accessoryStream.dropFirst(5))
        let sizes = split.map { [$0, bytes.count] } ?? [bytes.count]
        s.rfcommStream(handle: 0x0d, .received, cid: 0x0040, dlci: 6, bytes, frames: sizes)
        return s.bytes
    }

    func frames(_ bytes: [UInt8], decodeAs: [DecodeAs] = []) throws -> ([String], [String]) {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        var frames: [String] = []
        var diagnostics: [String] = []
        try Pipeline.run(&reader, Configuration(decodeAs: decodeAs)) { e in
            if case .frame(let a) = e.body {
                frames.append(
                    "ea \(a.eaSession ?? 0) \(a.protocolName ?? "-") cmd \(a.frame.command) seq \(a.frame.sequence ?? 0)"
                )
            }
            if let d = e.diagnostic { diagnostics.append(d.id) }
        }
        return (frames, diagnostics)
    }

    func testAnIAP2StreamSplitAtEveryOffsetOverRFCOMMGivesTheSameFrames() throws {
        let whole = try frames(capture(split: nil, setup: true))
        XCTAssertEqual(whole.0, ["ea 9 - cmd 144 seq 1", "ea 9 - cmd 145 seq 2"])
        XCTAssertEqual(whole.1, [])
        for split in 1..<accessoryStream.count {
            XCTAssertEqual(try frames(capture(split: split, setup: true)).0, whole.0, "split at \(split)")
        }
    }

    func testAChannelWithNoCapturedSetupIsGuessedOrForced() throws {
        let bytes = capture(split: nil, setup: false)
        // Guessed as RFCOMM (said once); the stream starts mid-packet, so nothing says it is iAP2.
        let guessed = try frames(bytes)
        XCTAssertEqual(guessed.0, [])
        XCTAssertEqual(guessed.1, ["l2cap.channel.guessed"])
        // Forced: the link resyncs past the partial SYN and frames the EA data.
        let forced = try frames(bytes, decodeAs: [.cid(0x0040, psm: PSM.rfcomm), .rfcommIAP2(channel: 3)])
        XCTAssertEqual(forced.0, ["ea 9 - cmd 144 seq 1", "ea 9 - cmd 145 seq 2"])
        XCTAssertEqual(forced.1, ["iap2.resync"])
    }
}

final class AccessoryStatsTests: XCTestCase {
    func testStatsListTheAccessoryIdentification() throws {
        var reader = try CaptureFormat.open(MemorySource(SampleCaptures.bredrIAP2().bytes))
        let stats = StatsCollector(file: "iap2", info: reader.info)
        let analyzer = try Pipeline.run(&reader, onRecord: stats.record, onEvent: stats.event)
        let json = stats.json(connections: analyzer.connectionSummaries)
        XCTAssertTrue(
            json.contains(
                #""accessories":[{"name":"Lumen Lamp","model":"LL-2","manufacturer":"Lawaken","serial":"LW0001","firmware":"2.1.0","hardware":"B","protocols":[{"id":1,"name":"com.lawaken.iap2"}]}]"#
            ), json)
        XCTAssertTrue(json.contains(#""a5_frames":{"total":3,"sent":1,"received":2,"checksum_bad":1}"#), json)
        XCTAssertTrue(
            stats.text(connections: analyzer.connectionSummaries).contains("Accessory:   Lumen Lamp, LL-2 by Lawaken"))
    }
}
