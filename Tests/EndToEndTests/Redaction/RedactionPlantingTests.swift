import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensReport

/// `--redact` hides what it promises in every form: a PacketLogger capture and an app log carry
/// known names, serials and addresses in every place a report shows (decoded fields, raw and
/// undecoded hex, advertising data, SDP service names, notes, config and syslog records, iAP2
/// identification, log lines), as text and as hex in each spelling; no report format of it holds any.
final class RedactionPlantingTests: XCTestCase {
    /// The phone's paired devices, known from PacketLogger config records only.
    static let paired = ("Hawk的AirPods Pro 3", [UInt8]([0xcc, 0xc6, 0x3d, 0xe1, 0x04, 0xf0]))
    static let pairedNoAddress = "Even G2_32_R_157814"
    static let gapName = "Lucy's Planted Watch"
    static let gapAddress: [UInt8] = [0x55, 0x44, 0x33, 0x22, 0x11, 0x02]
    static let advertised = "Garden Beacon 42"
    static let advertiser: [UInt8] = [0x99, 0x88, 0x77, 0x66, 0x55, 0xc4]
    static let accessory = "Ana's Lamp Secret"
    static let serial = "AX2-0042-7781"
    static let remoteName = "Bob's Car Kit"
    /// The phone's own name.
    static let localName = "Hawk's iPhone 17"
    /// The iAP2 sample's accessory.
    static let accessoryAddress: [UInt8] = [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]
    static let sdpAddress: [UInt8] = [0x06, 0x05, 0x04, 0x03, 0x02, 0xd1]

    static var names: [String] { [paired.0, pairedNoAddress, gapName, advertised, accessory, remoteName, localName] }
    static var addresses: [[UInt8]] { [paired.1, gapAddress, advertiser, accessoryAddress, sdpAddress] }

    /// Every spelling of every secret a report could hold.
    static func forms() -> [String] {
        var texts = names + [serial]
        texts += names.flatMap { [$0.replacingOccurrences(of: "'", with: "&#39;"), ReportLine.markdown($0)] }
        var bytes = (names + [serial]).map { Array($0.utf8) }
        // What a dump cut short keeps of one.
        bytes += bytes.map { Array($0.prefix(5)) }
        for wire in addresses {
            texts.append(BDAddr(wire: wire).description)
            texts.append(BDAddr(wire: wire).description.lowercased())
            bytes += [wire, wire.reversed()]
        }
        for b in bytes {
            let lower = [Hex.string(b), Hex.spaced(b), b.map { Hex.string([$0]) }.joined(separator: ":")]
            texts += lower + lower.map { $0.uppercased() }
        }
        return texts
    }

    static func capture() throws -> [UInt8] {
        var s = SampleCaptures.bredrIAP2(accessoryName: accessory, serial: serial)
        // An advertised Local Name (Core Supplement Part A 1.2).
        let ad: [UInt8] = [UInt8(advertised.utf8.count + 1), 0x09] + Array(advertised.utf8)
        s.event(0x3e, [0x02, 0x01, 0x00, 0x00] + advertiser + [UInt8(ad.count)] + ad + [UInt8(bitPattern: -60)])
        // The GAP Device Name discovered at 0x0003 and read; then written, raw, to another handle, and
        // sent with the serial and an address on a fixed channel no layer decodes.
        s.connect(handle: 0x40, address: gapAddress)
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: 0x40, .received, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2a])
        s.att(handle: 0x40, .sent, [0x0a, 0x03, 0x00])
        s.att(handle: 0x40, .received, [0x0b] + Array(gapName.utf8))
        s.att(handle: 0x40, .sent, [0x12, 0x10, 0x00, 0x01] + Array(gapName.utf8))
        s.l2cap(handle: 0x40, .sent, cid: 0x0030, [0x01] + paired.1 + Array(serial.utf8) + Array(advertised.utf8))
        // Write Local Name (Core Vol 4 Part E 7.3.11), and the same read back (7.3.12).
        let local = Array(localName.utf8) + [0]
        s.command(0x0c13, local)
        s.event(0x0e, [0x01, 0x14, 0x0c, 0x00] + local)
        // A Remote Name Request Complete (Core Vol 4 Part E 7.7.7): the name, NUL-padded to 248 bytes.
        let utf8 = Array(remoteName.utf8)
        s.event(0x07, [0x00] + sdpAddress + utf8 + Array(repeating: 0, count: 248 - utf8.count))
        // An SDP record whose service name holds a device's name (Core Vol 3 Part B 4.7).
        s.connectBREDR(handle: 0x0d, address: sdpAddress)
        s.l2cap(handle: 0x0d, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x01, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: 0x0d, .received, cid: 0x0001,
            [0x03, 0x01, 0x08, 0x00, 0x70, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.l2cap(
            handle: 0x0d, .sent, cid: 0x0070,
            [
                0x06, 0x00, 0x01, 0x00, 0x0f, 0x35, 0x03, 0x19, 0x11, 0x01, 0xff, 0xff, 0x35, 0x05, 0x0a, 0x00, 0x00,
                0xff, 0xff, 0x00,
            ])
        s.l2cap(
            handle: 0x0d, .received, cid: 0x0040,
            SampleCaptures.sdpResponse(serviceName: "\(gapName) Sync for \(accessory)"), fragment: 64)
        var p = PlantedPacketLogger()
        // Config records list the phone's devices: version 1, two bytes, the name's length, the name,
        // the address (least significant byte first, or zeros), a key.
        for (name, wire) in [(paired.0, paired.1), (pairedNoAddress, [UInt8](repeating: 0, count: 6))] {
            let utf8 = Array(name.utf8)
            p.add(0xfd, [0x01, 0x00, 0x00, UInt8(utf8.count)] + utf8 + wire + Array(repeating: 0x5a, count: 16))
        }
        p.add(
            0xfc,
            Array("Connected to \(paired.0) (\(BDAddr(wire: paired.1))), then \(remoteName) from \(localName)".utf8))
        // A note that is no text is shown as hex.
        p.add(0xfc, [0x01, 0x02] + Array(pairedNoAddress.utf8) + [0x00, 0x07])
        p.syslog("Found \(pairedNoAddress), serial \(serial)")
        try p.add(btsnoop: s.bytes)
        return p.bytes
    }

    /// An app log of the same minutes naming the devices, as text and as the bytes it sent.
    static func appLog() -> String {
        let lines = [
            "I Phone: paired \(paired.0) and \(gapName)",
            "D Phone: TX ident \(Hex.spaced(Array(accessory.utf8)).uppercased())",
            "D Phone: serial \(serial) = \(Array(serial.utf8).map { Hex.string([$0]) }.joined(separator: ":"))",
            "D Phone: RX \(Hex.string(Array(pairedNoAddress.utf8)))",
            "W Phone: lost \(BDAddr(wire: advertiser).description.lowercased())",
        ]
        return "--------- beginning of main\n"
            + lines.enumerated().map { "11-14 22:13:20.0\($0.offset)5  4321  4390 \($0.element)" }
            .joined(separator: "\n") + "\n"
    }

    /// The same in this process, from the builder to each renderer, with no app log.
    func testNoSecretSurvivesTheRenderers() throws {
        var options = ReportBuilder.Options()
        options.redact = true
        var reader = try CaptureFormat.open(MemorySource(try Self.capture()))
        let path = "/home/hawk-private/bt/planted.pklg"
        let builder = ReportBuilder(file: path, info: reader.info, options: options)
        let analyzer = try Pipeline.run(&reader, onRecord: builder.record, onEvent: builder.event)
        let r = builder.finish(
            connections: analyzer.connectionSummaries, gatt: analyzer.gatt, advertisers: analyzer.advertisers)
        let pages = [
            ("html", ReportHTML.render(r, generator: "test")), ("md", ReportText.render(r, markdown: true)),
            ("txt", ReportText.render(r, markdown: false)),
            ("json", String(decoding: ReportJSON.render(r), as: UTF8.self)),
        ]
        let forms = Self.forms() + ["/home/hawk-private", "hawk-private"]
        for (format, page) in pages {
            XCTAssertEqual(forms.filter { page.contains($0) }, [], format)
            XCTAssertTrue(page.contains("[serial 1]") || page.contains(#"\[serial 1\]"#), format)
        }
    }

    /// The real iPhone capture of ../shared (skipped without it) lists four devices in its config
    /// records, which nothing else in it names.
    func testARealPacketLoggerFileKeepsNoDeviceName() throws {
        let capture = RealCaptureConformanceTests.shared.appendingPathComponent("evenG2_test.pklg").path
        try XCTSkipUnless(FileManager.default.fileExists(atPath: capture), "../shared/captures is absent")
        let out = NSTemporaryDirectory() + "btlens-redact-real-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try runCLI(["report", capture, "-o", out, "--redact", "--no-dissectors"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try String(contentsOfFile: out, encoding: .utf8).lowercased()
        for part in ["AirPods", "Apple\u{a0}Watch", "Even G2_32_"] {
            for form in [part, Hex.string(Array(part.utf8)), Hex.spaced(Array(part.utf8))] {
                XCTAssertFalse(report.contains(form.lowercased()), form)
            }
        }
        XCTAssertTrue(report.contains("[name 4]"))
    }

    func testNoSecretSurvivesInAnyFormatOfTheReport() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hawk-private-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("planted.pklg").path
        let log = folder.appendingPathComponent("phone.logcat.txt").path
        XCTAssertTrue(FileManager.default.createFile(atPath: input, contents: Data(try Self.capture())))
        try Self.appLog().write(toFile: log, atomically: true, encoding: .utf8)
        let forms = Self.forms() + [folder.path, folder.lastPathComponent]
        for redact in [false, true] {
            for format in ["html", "md", "txt", "json"] {
                let output = folder.appendingPathComponent("report-\(redact).\(format)").path
                let run = try runCLI(
                    ["report", input, "-o", output, "--app-log", log, "--no-dissectors"] + (redact ? ["--redact"] : []))
                XCTAssertEqual(run.status, 0, run.stderr)
                let report = try String(contentsOfFile: output, encoding: .utf8)
                let found = forms.filter { report.contains($0) }
                if redact {
                    XCTAssertEqual(found, [], "in the redacted \(format) report")
                    XCTAssertTrue(report.contains("planted.pklg") && report.contains("phone.logcat.txt"), format)
                } else {
                    // Each place was planted: without --redact the report shows each secret somewhere.
                    for secret in Self.names + [Self.serial, Hex.string(Array(Self.pairedNoAddress.utf8))]
                    where format == "json" {
                        XCTAssertTrue(report.contains(secret), "\(secret) planted")
                    }
                }
            }
        }
    }
}

/// A little-endian PacketLogger file, as PacketLogger and iOS sysdiagnose write it: a btsnoop
/// script's HCI records, and the text and config records only PacketLogger has.
private struct PlantedPacketLogger {
    private(set) var bytes: [UInt8] = []
    private var time: Int64 = 1_700_000_000_000_000

    /// Every HCI record of a btsnoop file, at its time.
    mutating func add(btsnoop: [UInt8]) throws {
        var reader = try CaptureFormat.open(MemorySource(btsnoop))
        while let item = try reader.next() {
            guard case .record(let r) = item else { continue }
            let received = r.direction == .received
            let type: UInt8
            switch r.kind {
            case .command: type = 0x00
            case .event: type = 0x01
            case .aclData: type = received ? 0x03 : 0x02
            case .scoData: type = received ? 0x09 : 0x08
            case .isoData: type = received ? 0x13 : 0x12
            case .note, .unknown, .linkLayer: continue
            }
            add(type, Array(r.payload), at: r.timestamp.microseconds)
        }
    }

    /// A record of `type` (0xFC note, 0xFD config, 0xF7 syslog, …), 1 ms after the last.
    mutating func add(_ type: UInt8, _ payload: [UInt8], at microseconds: Int64? = nil) {
        time = microseconds ?? time + 1_000
        let (seconds, micros) = time.quotientAndRemainder(dividingBy: 1_000_000)
        for word in [UInt32(9 + payload.count), UInt32(truncatingIfNeeded: seconds), UInt32(micros)] {
            bytes += (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        bytes += [type] + payload
    }

    /// A syslog record: pid, message type, then process, sender, subsystem, category and message.
    mutating func syslog(_ message: String) {
        add(
            0xf7,
            [0x2a, 0, 0, 0, 0] + Array("bluetoothd\0bluetoothd\0com.apple.bluetooth\0CBManager\0\(message)\0".utf8))
    }
}
