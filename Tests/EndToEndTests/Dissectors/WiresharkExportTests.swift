import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// `btlens dissectors export --wireshark` checked against btlens itself: tshark, with the exported
/// plugin, must show the frames, names and diagnostics btlens' JSONL shows, in the same records.
/// Skipped without tshark (CI installs it).
final class WiresharkExportTests: XCTestCase {
    static let root = packageRoot
    static let shipped = root.appendingPathComponent("Dissectors").path
    /// Captures whose frames Wireshark cannot reach, and why.
    static let unreachable = [
        // btsnoop datalink 1001 (H1) that holds H4 packets: btlens sees the H4 type bytes, Wireshark
        // reads them as H1 and decodes no ACL data.
        "h4_labelled_1001.btsnoop"
    ]

    var plugin: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("btlens-export-\(getpid()).lua").path
    }

    func tshark(_ arguments: [String]) throws -> [String] {
        guard let lines = try runTshark(arguments) else { throw XCTSkip("tshark is not installed") }
        return lines
    }

    /// tshark built with Lua, or the test is skipped: without it the plugin cannot load.
    func requireLuaTshark() throws {
        let version = try tshark(["-v"]).joined(separator: "\n")
        try XCTSkipUnless(version.contains("with Lua"), "tshark is built without Lua")
    }

    func export(_ definitions: String) throws {
        let run = try runCLI(["dissectors", "export", "--wireshark", definitions, "-o", plugin])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    func events(_ capture: String, _ arguments: [String]) throws -> [[String: Any]] {
        let run = try runCLI(["timeline", capture, "--format", "jsonl"] + arguments)
        return run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Characteristics the Bluetooth SIG assigned (0x2A00–0x2BFF): a definition takes them over
    /// from btlens' built-in dissectors on its own devices only, and Wireshark decodes them itself.
    static func isSIG(_ uuid: String?) -> Bool {
        guard let uuid, uuid.count == 4, let v = UInt16(uuid, radix: 16) else { return false }
        return (0x2a00...0x2bff).contains(v)
    }

    /// What btlens says a capture holds at the layer the plugin covers: "record command=N", "record
    /// name=Name" and "record diagnostic-id", where
    /// a diagnostic's record is the one btlens detected it in; and the Decode As arguments Wireshark
    /// needs for streams whose discovery is not in the capture.
    func expected(_ capture: String, _ protocols: [String], _ arguments: [String]) throws -> (
        items: [String], decodeAs: [String]
    ) {
        let all = try events(capture, arguments)
        var streams: [String: (dissector: String, handle: Int?, discovered: Bool)] = [:]
        // A stream: a characteristic or EA session of a connection, from the record it opened at
        // (handles are reused by later connections).
        var opened: [Int: Int] = [:]
        let keys = all.map { e -> String in
            let connection = e["connection"] as? Int ?? -1
            if e["type"] as? String == "connection", e["change"] as? String == "opened" {
                opened[connection] = e["record"] as? Int
            }
            return "\(connection)/\(opened[connection] ?? 0)/\(e["att_handle"] ?? "")/\(e["ea_session"] ?? "")"
        }
        var items: [String] = []
        for (e, key) in zip(all, keys) {
            // The plugin binds no PSMs: frames on credit-based channels are btlens' alone.
            guard let type = e["type"] as? String, type == "a5" || type == "message",
                let d = e["dissector"] as? String, protocols.contains(d), !Self.isSIG(e["uuid"] as? String),
                e["transport"] as? String != "l2cap"
            else { continue }
            streams[key] = (d, e["att_handle"] as? Int, e["uuid"] != nil)
            let record = e["record"] ?? 0
            if let command = e["command"] { items.append("\(record) command=\(command)") }
            if let name = e["command_name"] { items.append("\(record) name=\(name)") }
        }
        // The iAP2 link layer the plugin brings: control messages by name, and its diagnostics.
        for e in all {
            if e["type"] as? String == "iap2.control", let name = e["name"] as? String {
                items.append("\(e["record"] ?? 0) iap2=\(name)")
            }
            if e["type"] as? String == "diagnostic", let id = e["id"] as? String,
                id.hasPrefix("iap2.") || id == "rfcomm.channel.guess_withdrawn"
            {
                items.append("\(e["detected_record"] ?? e["record"] ?? 0) \(id)")
            }
        }
        for (e, key) in zip(all, keys) {
            guard e["type"] as? String == "diagnostic", let id = e["id"] as? String, id.hasPrefix("a5."),
                streams[key] != nil || protocols.contains(e["dissector"] as? String ?? "")
            else { continue }
            items.append("\(e["detected_record"] ?? e["record"] ?? 0) \(id)")
        }
        var decodeAs = streams.values.filter { !$0.discovered && $0.handle != nil }.flatMap {
            ["-d", "btatt.handle==\($0.handle ?? 0),\($0.dissector.replacingOccurrences(of: "-", with: "_"))"]
        }
        // iAP2 found by its detect bytes, not SDP: Decode As on the RFCOMM channels opened (SABM)
        // on the connections btlens shows iAP2 on.
        let iap2 = Set(all.filter { $0["type"] as? String == "iap2" }.compactMap { $0["connection"] as? Int })
        let dlcis = Set(
            all.filter {
                $0["type"] as? String == "rfcomm" && $0["frame"] as? String == "SABM"
                    && iap2.contains($0["connection"] as? Int ?? -1)
            }.compactMap { $0["dlci"] as? Int }.filter { $0 > 0 })
        decodeAs += dlcis.sorted().flatMap { ["-d", "btrfcomm.dlci==\($0),iap2"] }
        return (items.sorted(), decodeAs)
    }

    /// What tshark shows with the plugin, in the same form. Two passes, the first with a read
    /// filter: tshark's first pass builds no protocol tree otherwise, and Lua reads no fields.
    func shown(
        _ capture: String, _ protocols: [String], decodeAs: [String], passes: [String] = ["-2", "-R", "frame"]
    ) throws -> [String] {
        var arguments = ["-X", "lua_script:\(plugin)", "-r", capture] + passes + ["-T", "fields"]
        arguments += ["-e", "frame.number"] + decodeAs
        for p in protocols {
            let name = p.replacingOccurrences(of: "-", with: "_")
            arguments += ["-e", name + ".command", "-e", name + ".command_name"]
        }
        // The iAP2 dissector comes with the plugin only where a definition binds an EA protocol.
        let iap2 = try String(contentsOfFile: plugin, encoding: .utf8).contains("\"iap2.msg.name\"")
        arguments += ["-e", iap2 ? "iap2.msg.name" : "frame.len", "-e", "_ws.expert.message"]
        var items: [String] = []
        for line in try tshark(arguments) {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let number = columns.first, columns.count == 2 * protocols.count + 3 else { continue }
            for (i, values) in columns.dropFirst().dropLast(2).enumerated() {
                for v in values.split(separator: ",") {
                    // Commands print in hex (0x20), names as they are.
                    items.append(
                        i % 2 == 0 ? "\(number) command=\(Int(v.dropFirst(2), radix: 16) ?? -1)" : "\(number) name=\(v)"
                    )
                }
            }
            for name in columns[columns.count - 2].split(separator: ",") where iap2 {
                items.append("\(number) iap2=\(name)")
            }
            for message in columns[columns.count - 1].split(separator: ",")
            where message.hasPrefix("a5.") || message.hasPrefix("iap2.") || message.hasPrefix("rfcomm.")
                // The plugin failing is never what btlens shows.
                || message.hasPrefix("Lua Error")
            {
                items.append("\(number) \(message.prefix { $0 != ":" })")
            }
        }
        return items.sorted()
    }

    /// Compares one capture; returns how many items were compared.
    func compare(_ capture: String, _ protocols: [String], _ arguments: [String]) throws -> Int {
        let (want, decodeAs) = try expected(capture, protocols, arguments)
        XCTAssertEqual(try shown(capture, protocols, decodeAs: decodeAs), want, capture)
        return want.count
    }

    func testTsharkShowsWhatBtlensShowsOnEverySampleCapture() throws {
        try requireLuaTshark()
        try export(Self.shipped)
        let folder = Self.root.appendingPathComponent("Captures")
        var compared = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".btsnoop") && !Self.unreachable.contains(name) {
            compared += try compare(
                folder.appendingPathComponent(name).path, ["aurora-headphones", "lawaken-lamp"],
                ["--dissectors", Self.shipped])
        }
        XCTAssertGreaterThan(compared, 40)
    }

    /// Decode As on a handle Wireshark also binds by its UUID hands each value over twice: each
    /// frame is still shown once. In one pass, everything but what the end of the capture reveals
    /// is shown, a record cut short in mid-capture included.
    func testDecodeAsTwiceAndOnePass() throws {
        try requireLuaTshark()
        try export(Self.shipped)
        let session = Self.root.appendingPathComponent("Captures/ble_a5_session.btsnoop").path
        let (want, _) = try expected(session, ["aurora-headphones"], ["--dissectors", Self.shipped])
        let twice = ["-d", "btatt.handle==0x13,aurora_headphones", "-d", "btatt.handle==0x15,aurora_headphones"]
        XCTAssertEqual(try shown(session, ["aurora-headphones"], decodeAs: twice), want)

        let faults = Self.root.appendingPathComponent("Captures/ble_a5_faults.btsnoop").path
        let (all, decodeAs) = try expected(faults, ["aurora-headphones"], ["--dissectors", Self.shipped])
        let last = all.compactMap { Int($0.prefix { $0 != " " }) }.max() ?? 0
        let onePass = try shown(faults, ["aurora-headphones"], decodeAs: decodeAs, passes: [])
        XCTAssertEqual(onePass, all.filter { !$0.hasPrefix("\(last) ") })
        XCTAssertTrue(onePass.contains("16 a5.truncated"))
    }

    /// The benchmark's capture: 70 connections of A5 streams and iAP2 sessions with every fault
    /// the framing and pairing report.
    func testTheBenchmarkCaptureMatches() throws {
        try requireLuaTshark()
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-bench-\(getpid()).btsnoop")
        var bytes: [UInt8] = []
        _ = BenchmarkCapture.generate(bytes: 1_000_000) { bytes += $0 }
        try Data(bytes).write(to: capture)
        defer { try? FileManager.default.removeItem(at: capture) }
        try export(Self.shipped)
        let compared = try compare(
            capture.path, ["aurora-headphones", "lawaken-lamp"], ["--dissectors", Self.shipped])
        XCTAssertGreaterThan(compared, 5000)
    }

    /// `devices:` holds in Wireshark too: the same discovered 0xFFF3 carries A5 frames on three
    /// devices; the vendor's address prefix and advertised name are decoded as the vendor's, the
    /// third device is not (btlens finds its frames by detection, and names none).
    func testCharacteristicsBoundOnDevicesAreDecodedOnThoseOnly() throws {
        try requireLuaTshark()
        var s = LESession()
        let stranger: [UInt8] = [0x03, 0x03, 0x03, 0x44, 0x33, 0x02]
        let named: [UInt8] = [0x04, 0x04, 0x04, 0x44, 0x33, 0x04]
        let name = Array("Aurora ANC 2".utf8)
        // LE Advertising Report: one report, ADV_IND, public address, Complete Local Name.
        _ = s.event(
            0x3e,
            [0x02, 0x01, 0x00, 0x00] + named + [UInt8(name.count + 2), UInt8(name.count + 1), 0x09] + name + [0xc0])
        for (handle, address): (UInt16, [UInt8]) in [
            (0x40, [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]), (0x41, stranger), (0x42, named),
        ] {
            s.connect(handle: handle, address: address)
            s.att(handle: handle, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
            // Read By Type Response: characteristic 0x0013 is 0xFFF3.
            s.att(handle: handle, .received, [0x09, 0x07, 0x12, 0x00, 0x04, 0x13, 0x00, 0xf3, 0xff])
            s.frame(handle: handle, attHandle: 0x0013, .sent, command: 0x20, sequence: 1, payload: [0x01])
            s.frame(handle: handle, attHandle: 0x0013, .sent, command: 0x20, sequence: 2, payload: [0x02])
        }
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-devices-\(getpid()).btsnoop")
        try Data(s.bytes).write(to: capture)
        defer { try? FileManager.default.removeItem(at: capture) }
        try export(Self.shipped)
        let frames = try events(capture.path, ["--dissectors", Self.shipped]).filter {
            $0["type"] as? String == "a5" && $0["dissector"] as? String == "aurora-headphones"
        }
        XCTAssertEqual(frames.compactMap { $0["connection"] as? Int }, [0x40, 0x40, 0x42, 0x42])
        XCTAssertEqual(try compare(capture.path, ["aurora-headphones"], ["--dissectors", Self.shipped]), 4 * 2 + 4)

        // A second definition binds 0xFFF3 for every device: it names the third device's frames,
        // and the vendor's definition keeps its own devices, whichever is exported or loaded first.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-generic-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let generic = folder.appendingPathComponent("generic-a5.yaml")
        try """
        protocol: generic-a5
        bind:
          characteristics:
            - {uuid: fff3, role: command}
        messages:
          - {id: 0x20, name: GenericSet, from: phone, seq: [{id: x, type: u1}]}
        """.write(to: generic, atomically: true, encoding: .utf8)
        let both = ["--dissectors", generic.path, "--dissectors", Self.shipped]
        let byDissector = try events(capture.path, both).filter { $0["type"] as? String == "a5" }.map {
            "\($0["connection"] ?? "") \($0["dissector"] ?? "")"
        }
        XCTAssertEqual(
            byDissector,
            [
                "64 aurora-headphones", "64 aurora-headphones", "65 generic-a5", "65 generic-a5",
                "66 aurora-headphones", "66 aurora-headphones",
            ])
        let run = try runCLI(["dissectors", "export", "--wireshark", generic.path, Self.shipped, "-o", plugin])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try compare(capture.path, ["aurora-headphones", "generic-a5"], both), 6 * 2 + 4)
    }

    /// A Service Search Attribute Response with one record: ServiceClassIDList {Serial Port 0x1101},
    /// ProtocolDescriptorList {{L2CAP}, {RFCOMM, channel 1}} (Core Vol 3 Part B §4.7, §5.1).
    static func serialPortRecord() -> [UInt8] {
        let record: [UInt8] = [
            0x09, 0x00, 0x01, 0x35, 0x03, 0x19, 0x11, 0x01,
            0x09, 0x00, 0x04, 0x35, 0x0c, 0x35, 0x03, 0x19, 0x01, 0x00, 0x35, 0x05, 0x19, 0x00, 0x03, 0x08, 0x01,
        ]
        let lists: [UInt8] = [0x35, UInt8(record.count + 2), 0x35, UInt8(record.count)] + record
        let params = [0x00, UInt8(lists.count)] + lists + [0x00]
        return [0x07, 0x00, 0x01, 0x00, UInt8(params.count)] + params
    }

    /// An RFCOMM channel bound by its SDP service class (`rfcomm-services`), as Wireshark binds it
    /// from the same SDP record (by the record's first class): frames split across UIH frames and
    /// several in one.
    func testAnRFCOMMServiceIsBoundFromSDP() throws {
        try requireLuaTshark()
        var s = LESession()
        let h: UInt16 = 0x000d
        s.connectBREDR(handle: h, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x01, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x70, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.l2cap(
            handle: h, .sent, cid: 0x0070,
            [
                0x06, 0x00, 0x01, 0x00, 0x0f, 0x35, 0x03, 0x19, 0x11, 0x01, 0xff, 0xff,
                0x35, 0x05, 0x0a, 0x00, 0x00, 0xff, 0xff, 0x00,
            ])
        s.l2cap(handle: h, .received, cid: 0x0040, Self.serialPortRecord())
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x02, 0x04, 0x00, 0x03, 0x00, 0x41, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x02, 0x08, 0x00, 0x71, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00])
        for dlci: UInt8 in [0, 2] {
            s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: dlci, control: 0x3f)
            s.rfcomm(handle: h, .received, cid: 0x0041, dlci: dlci, control: 0x73)
        }
        let request = Frame.encode(command: 0x20, sequence: 1, payload: [0x02])
        let response = Frame.encode(command: 0xa0, sequence: 9, payload: [0x00])
        let event = Frame.encode(command: 0x05, sequence: 10, payload: [0x01, 0x50, 0x60])
        s.rfcommStream(handle: h, .sent, cid: 0x0071, dlci: 2, request, frames: [3, 5])
        s.rfcommStream(handle: h, .received, cid: 0x0041, dlci: 2, response + event + [0xa5, 0x01], frames: [20])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-rfcomm-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = folder.appendingPathComponent("spp.btsnoop")
        try Data(s.bytes).write(to: capture)
        let definition = folder.appendingPathComponent("spp-vendor.yaml")
        try """
        protocol: spp-vendor
        bind:
          rfcomm-services: [00001101-0000-1000-8000-00805f9b34fb]
        messages:
          - {id: 0x20, name: SetLevel, from: phone, seq: [{id: level, type: u1}]}
          - {id: 0xa0, name: SetLevelResponse, from: accessory, seq: [{id: status, type: u1}]}
          - {id: 0x05, name: Status, from: accessory, seq: [{id: state, type: u1}, {id: a, type: u1}, {id: b, type: u1}]}
        """.write(to: definition, atomically: true, encoding: .utf8)
        try export(definition.path)
        let compared = try compare(capture.path, ["spp-vendor"], ["--dissectors", definition.path])
        // Three frames, named, and the end of the capture inside a frame.
        XCTAssertEqual(compared, 3 * 2 + 1)
    }

    /// A vendor's variant on a real capture: AA frames, a 2-byte command, fragments joined, CRC-16
    /// over the payload, little-endian (Dissectors/examples/even-g2.yaml), bound by Decode As.
    func testAFrameVariantOnARealCaptureMatches() throws {
        try requireLuaTshark()
        let capture = RealCaptureConformanceTests.shared.appendingPathComponent("evenG2_test.pklg").path
        try XCTSkipUnless(FileManager.default.fileExists(atPath: capture), "../shared/captures is absent")
        let definition = Self.root.appendingPathComponent("Dissectors/examples/even-g2.yaml").path
        try export(definition)
        let compared = try compare(
            capture, ["even-g2"],
            ["--dissectors", definition, "--decode-as", "att:0x0842=even-g2", "--decode-as", "att:0x0844=even-g2"])
        XCTAssertEqual(compared, 64)
    }

    /// The plugin never fails in Lua on hostile input: every hostile capture, and sample captures
    /// with bytes changed at random, decoded as the vendor's on every stream they might carry.
    func testHostileCapturesRaiseNoLuaError() throws {
        try requireLuaTshark()
        try export(Self.shipped)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-hostile-lua-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [(String, [UInt8])] = HostileCaptures.all(zeroLengthRecords: 1000).map { ($0.file, $0.bytes) }
        let faults = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Captures/ble_a5_faults.btsnoop")))
        // The end of the capture is said in the last packet: here one of no bytes (a btsnoop record
        // header, lengths 0, the timestamp of the record before).
        files.append(("empty-last.btsnoop", faults + [UInt8](repeating: 0, count: 16) + faults.suffix(8)))
        var rng = SplitMix(seed: 26)
        for i in 0..<15 {
            var bytes = faults
            for _ in 0..<(1 + Int(rng.next() % 40)) {
                bytes[16 + Int(rng.next() % UInt64(bytes.count - 16))] = UInt8(truncatingIfNeeded: rng.next())
            }
            files.append(("mutant-\(i).btsnoop", bytes))
        }
        for (name, bytes) in files {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let out = try tshark([
                "-X", "lua_script:\(plugin)", "-r", path, "-2", "-R", "frame", "-V",
                "-d", "btatt.handle==0x13,aurora_headphones", "-d", "btatt.handle==0x15,aurora_headphones",
                "-d", "btrfcomm.dlci==6,aurora_headphones",
            ])
            XCTAssertFalse(out.contains { $0.contains("Lua Error") }, name)
        }
    }

    /// A display filter on the exported fields selects the records btlens' own --filter selects.
    func testDisplayFiltersSelectTheRecordsBtlensNames() throws {
        try requireLuaTshark()
        try export(Self.shipped)
        for (capture, btlens, wireshark, decodeAs) in [
            ("ble_a5_session", "a5 && command == 0x20", "aurora_headphones.command == 0x20", [String]()),
            ("ble_a5_session", "fields.preset == bassBoost", "aurora_headphones.preset == 1", []),
            ("ble_a5_session", "a5 && sequence == 17", "aurora_headphones.sequence == 17", []),
            (
                "ble_a5_faults", "a5 && command == 0x20", "aurora_headphones.command == 0x20",
                ["-d", "btatt.handle==0x13,aurora_headphones", "-d", "btatt.handle==0x15,aurora_headphones"]
            ),
            (
                "bredr_iap2_ea", "a5 && dissector == \"lawaken-lamp\" && command == 0xa0",
                "lawaken_lamp.command == 0xa0", ["-d", "btrfcomm.dlci==6,iap2"]
            ),
        ] {
            let path = Self.root.appendingPathComponent("Captures/\(capture).btsnoop").path
            let records = try runCLI([
                "timeline", path, "--dissectors", Self.shipped, "--format", "jsonl", "-Y", btlens,
            ])
            .stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["record"] as? Int
            }.map(String.init)
            XCTAssertFalse(records.isEmpty, btlens)
            let selected = try tshark(
                ["-X", "lua_script:\(plugin)", "-r", path, "-2", "-R", "frame", "-Y", wireshark]
                    + decodeAs + ["-T", "fields", "-e", "frame.number"])
            XCTAssertEqual(
                selected, Array(Set(records)).sorted { Int($0) ?? 0 < Int($1) ?? 0 }, "\(capture): \(wireshark)")
        }
    }
}
