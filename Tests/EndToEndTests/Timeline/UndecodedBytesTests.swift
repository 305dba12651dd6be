import BTLensCapture
import BTLensCore
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensDissect

/// `undecoded` events keep a packet's bytes up to `--limit undecoded-bytes`, and every output says
/// when bytes were cut: JSONL (`bytes_cut`), the text timeline and the report (`… (+N bytes)`).
final class UndecodedBytesTests: XCTestCase {
    /// 132 bytes of a vendor's binary serial protocol, which no decoder takes (no iAP2 start, no AT
    /// line): the accessory's answer on RFCOMM channel 2 (DLCI 4), after L2CAP signalling for PSM 3
    /// and SABM/UA, then an empty frame whose FCS is wrong.
    static let serial: [UInt8] = [0x55, 0xaa] + (0..<130).map { UInt8(($0 * 37 + 11) & 0xff) }

    static var capture: [UInt8] {
        var s = LESession()
        let h: UInt16 = 0x000b
        s.connectBREDR(handle: h, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 4, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0040, dlci: 4, control: 0x73)
        s.aclFragment = 1021
        s.rfcomm(handle: h, .received, cid: 0x0040, dlci: 4, control: 0xef, serial)
        // An empty UIH with a bad FCS: a diagnostic, around which the text reports show the timeline.
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 4, control: 0xef, corruptFCS: true)
        s.disconnect(handle: h)
        return s.bytes
    }

    func undecoded(_ limits: Limits = Limits()) throws -> [Event] {
        var reader = try CaptureFormat.open(MemorySource(Self.capture))
        var events: [Event] = []
        try Pipeline.run(&reader, Configuration(lowerLayers: false, limits: limits)) { events.append($0) }
        return events.filter { if case .undecoded = $0.body { return true } else { return false } }
    }

    func limited(_ n: Int) -> Limits {
        var limits = Limits()
        limits.undecodedBytes = n
        return limits
    }

    func testTheBytesAreKeptUpToTheLimitAndTheLengthIsTheFullSize() throws {
        XCTAssertEqual(Self.serial.count, 132)
        let whole = try undecoded()
        XCTAssertEqual(whole.count, 1)
        guard case .undecoded(let u) = whole[0].body else { return XCTFail() }
        XCTAssertEqual(u.what, "RFCOMM channel 2")
        XCTAssertEqual(u.length, 132)
        XCTAssertEqual(u.bytes, Self.serial)
        XCTAssertEqual(u.bytesCut, 0)
        guard case .undecoded(let cut) = try undecoded(limited(100))[0].body else { return XCTFail() }
        XCTAssertEqual(cut.length, 132)
        XCTAssertEqual(cut.bytes, Array(Self.serial.prefix(100)))
        XCTAssertEqual(cut.bytesCut, 32)
    }

    func testJSONLSaysHowManyBytesWereCut() throws {
        let jsonl = JSONLRenderer()
        let whole = String(decoding: jsonl.render(try undecoded()[0]) ?? [], as: UTF8.self)
        XCTAssertTrue(
            whole.hasSuffix(
                #""what":"RFCOMM channel 2","length":132,"bytes":"\#(Hex.string(Self.serial))","bytes_cut":0}"# + "\n"),
            whole)
        let cut = String(decoding: jsonl.render(try undecoded(limited(64))[0]) ?? [], as: UTF8.self)
        XCTAssertTrue(
            cut.hasSuffix(#""length":132,"bytes":"\#(Hex.string(Self.serial.prefix(64)))","bytes_cut":68}"# + "\n"), cut
        )
    }

    func testTheTextTimelineShowsTheFirstBytesAndCountsTheRest() throws {
        var text = TextRenderer()
        let line = text.render(try undecoded()[0]) ?? ""
        XCTAssertTrue(
            line.hasSuffix(
                "L2CAP not decoded: RFCOMM channel 2, 132 bytes: \(Hex.spaced(Self.serial.prefix(64))) … (+68 bytes)\n"),
            line)
        // A packet of 64 bytes or fewer is shown whole, with nothing said about a cut.
        let short = Event(
            record: 1, timestamp: Timestamp(microseconds: 0), direction: .received, connection: 1, isTop: true,
            body: .undecoded(UndecodedInfo(what: "SCO audio", length: 3, bytes: [1, 2, 3])))
        XCTAssertTrue(text.render(short)?.hasSuffix("not decoded: SCO audio, 3 bytes: 01 02 03\n") ?? false)
    }

    func testTheReportShowsTheCutInEveryFormat() throws {
        var reader = try CaptureFormat.open(MemorySource(Self.capture))
        let builder = ReportBuilder(file: "hfp.btsnoop", info: reader.info)
        let analyzer = try Pipeline.run(
            &reader, Configuration(lowerLayers: false, limits: limited(100)),
            onRecord: builder.record, onEvent: builder.event)
        let report = builder.finish(connections: analyzer.connectionSummaries, gatt: analyzer.gatt)
        let row = try XCTUnwrap(report.rows.first { $0.text.hasPrefix("not decoded") })
        // A row shows 64 bytes, as the text timeline does, and says how many it does not.
        XCTAssertEqual(row.hex, Hex.spaced(Self.serial.prefix(64)) + " … (+68 bytes)")
        XCTAssertTrue(row.text.hasSuffix("… (+68 bytes)"), row.text)
        for output in [
            ReportText.render(report, markdown: true), ReportText.render(report, markdown: false),
            ReportHTML.render(report, generator: "test"), String(decoding: ReportJSON.render(report), as: UTF8.self),
        ] {
            XCTAssertTrue(output.contains("(+68 bytes)"), output)
        }
    }
}

extension ExitStatusTests {
    /// The built CLI: `--limit undecoded-bytes=N` reaches the events, and the default keeps 132 bytes.
    func testUndecodedBytesTakeTheLimit() throws {
        let path = NSTemporaryDirectory() + "btlens-undecoded-\(UUID().uuidString).btsnoop"
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(UndecodedBytesTests.capture)))
        let whole = try btlens(["timeline", path, "--format", "jsonl", "--no-dissectors"])
        XCTAssertTrue(
            whole.stdout.contains(#""length":132,"bytes":"\#(Hex.string(UndecodedBytesTests.serial))","bytes_cut":0}"#),
            whole.stdout)
        let cut = try btlens([
            "timeline", path, "--format", "jsonl", "--no-dissectors", "--limit", "undecoded-bytes=64",
        ])
        XCTAssertTrue(
            cut.stdout.contains(
                #""length":132,"bytes":"\#(Hex.string(UndecodedBytesTests.serial.prefix(64)))","bytes_cut":68}"#),
            cut.stdout)
        let text = try btlens(["timeline", path, "--no-dissectors", "--color", "never"])
        XCTAssertTrue(text.stdout.contains("132 bytes: 55 aa 0b 30 55 7a"), text.stdout)
        XCTAssertTrue(text.stdout.contains(" … (+68 bytes)\n"), text.stdout)
    }
}
