import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// Definition files that ask for unbounded work, hang the open, or export names Wireshark refuses
/// (issue 47, parts 1, 6, 8 and 9), each run as its own process under a time and memory limit.
final class DefinitionFileHostileTests: XCTestCase {
    let capture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../../Captures/ble_a5_session.btsnoop"
    ).standardizedFileURL.path
    /// 1 GiB of address space: a normal run of the debug build fits (checked by `testANormalRunFits`).
    let memory = 1 << 30

    /// The issue's nine lines, bound where the sample capture's A5 frames are, with an example.
    static let bomb = """
        protocol: bomb
        bind: {characteristics: [{uuid: fff3, role: command}, {uuid: fff4, role: event}]}
        types:
          e: {seq: []}
          a: {seq: [{id: x, type: e, repeat: 4096}]}
          b: {seq: [{id: y, type: a, repeat: 4096}]}
        messages:
          - {id: 0x20, name: M, seq: [{id: z, type: b, repeat: 4096}]}
        """

    /// A folder holding `files`, as `./Dissectors` of a folder btlens runs in; its path and the run folder.
    func folder(_ files: [String: String]) throws -> (run: String, dissectors: String) {
        let run = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-defs-\(UUID().uuidString)")
        let dissectors = run.appendingPathComponent("Dissectors")
        try FileManager.default.createDirectory(at: dissectors, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: run) }
        for (name, text) in files {
            try Data(text.utf8).write(to: dissectors.appendingPathComponent(name))
        }
        return (run.path, dissectors.path)
    }

    /// `btlens ARGS` run in `cwd` with no definitions of the user's.
    func run(_ arguments: [String], in cwd: String) throws -> CLIRun {
        try runCLI(
            arguments, environment: ["XDG_CONFIG_HOME": cwd + "/no-config"], timeout: 30, cwd: cwd,
            memoryLimit: memory)
    }

    func testANormalRunFits() throws {
        let (cwd, _) = try folder([:])
        let r = try run(["timeline", capture], in: cwd)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testRepeatsOfRepeatsAreRefusedByEveryCommand() throws {
        let example = "\nexamples: [{hex: a5 01 20 07 00 00 cd, from: phone, expect: {name: M}}]\n"
        for text in [Self.bomb, Self.bomb + example] {
            let (cwd, _) = try folder(["bomb.yaml": text])
            let refusal =
                "Dissectors/bomb.yaml:8: message M: its fields can produce more than 65536 values (repeats of types of repeats); a message may produce at most 65536"
            for arguments in [
                ["dissectors", "list"], ["timeline", capture], ["dissectors", "export", "--wireshark", "-o", "-"],
            ] {
                let r = try run(arguments, in: cwd)
                XCTAssertEqual(r.status, 2, "\(arguments): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(refusal), "\(arguments): \(r.stderr)")
            }
            let check = try run(["dissectors", "check"], in: cwd)
            XCTAssertEqual(check.status, 1)
            XCTAssertTrue(check.stdout.contains(refusal), check.stdout)
        }
    }

    func testTypesOfTypesAreRefusedFast() throws {
        var yaml = "protocol: tower\ntypes:\n  t0: {seq: [{id: v, type: u1}]}\n"
        for i in 1...9 {
            yaml +=
                "  t\(i): {seq: [" + (0..<10).map { "{id: f\($0), type: t\(i - 1)}" }.joined(separator: ", ") + "]}\n"
        }
        yaml += "messages:\n  - {id: 1, name: M, seq: [{id: top, type: t9}]}\n"
        let (cwd, _) = try folder(["tower.yaml": yaml])
        let r = try run(["dissectors", "check"], in: cwd)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("Dissectors/tower.yaml:14: message M: its fields can produce more"), r.stdout)
    }

    func testAFIFOInTheFolderIsSkippedNotWaitedOn() throws {
        let (cwd, dissectors) = try folder([:])
        XCTAssertEqual(mkfifo(dissectors + "/x.yaml", 0o600), 0)
        let r = try run(["timeline", capture], in: cwd)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(
            r.stderr.contains(
                "btlens: warning: Dissectors/x.yaml:-: a FIFO or other special file, not a regular file: not read (definitions are regular files)"
            ), r.stderr)
        let check = try run(["dissectors", "check"], in: cwd)
        XCTAssertEqual(check.status, 1)
        XCTAssertTrue(check.stdout.contains("Dissectors/x.yaml:-: a FIFO or other special file"), check.stdout)
        // Given itself, it is named as what it is, not as its folder of none loaded.
        let given = try run(["timeline", "--summary", "--dissectors", "Dissectors/x.yaml", capture], in: cwd)
        XCTAssertEqual(given.status, 0, given.stderr)
        XCTAssertTrue(
            given.stdout.contains(
                "Dissectors:  Dissectors/x.yaml (--dissectors, \(dissectors)/x.yaml): a FIFO or other special file,"
                    + " not a regular file: not read;"), given.stdout)
        XCTAssertFalse(given.stdout.contains("none loaded"), given.stdout)
    }

    func testNonUTF8AndOversizedFilesAreNamedExactly() throws {
        let (cwd, dissectors) = try folder([:])
        var bytes = Array("protocol: t\ntitle: caf".utf8) + [0xe9] + Array(" au lait\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: dissectors + "/latin1.yaml"))
        let r = try run(["dissectors", "check"], in: cwd)
        XCTAssertTrue(
            r.stdout.contains("Dissectors/latin1.yaml:2: not UTF-8 text: byte 0xe9 at byte offset 22 is not UTF-8"),
            r.stdout)
        try FileManager.default.removeItem(atPath: dissectors + "/latin1.yaml")
        bytes = Array("protocol: t\n#".utf8) + [UInt8](repeating: 0x78, count: 3 << 20)
        try Data(bytes).write(to: URL(fileURLWithPath: dissectors + "/big.yaml"))
        let big = try run(["dissectors", "check"], in: cwd)
        XCTAssertTrue(
            big.stdout.contains("Dissectors/big.yaml:-: file of 3145741 bytes; definitions are limited to 1048576"),
            big.stdout)
    }

    func testKeysSpeltTwiceEmptyRangesAndUnusedLoopsAreLoadErrors() throws {
        let (cwd, _) = try folder([
            "enum.yaml": "protocol: ee\nenums:\n  on: {1: one, 0x1: uno, 0b1: ein}\n",
            "flags.yaml": "protocol: ff\nflags: {0x01: a, 0b1: b}\n",
            "valid.yaml":
                "protocol: vv\nmessages:\n  - {id: 1, name: M, seq: [{id: x, type: u1, valid: {min: 100, max: 0}}]}\n",
            "loop.yaml": "protocol: ll\ntypes:\n  loop: {seq: [{id: again, type: loop}]}\n",
        ])
        let r = try run(["dissectors", "check"], in: cwd)
        XCTAssertEqual(r.status, 1)
        for line in [
            "Dissectors/enum.yaml:3: enum on: key '0x1' is 1, as '1' is; each value once",
            "Dissectors/flags.yaml:2: flags: key '0b1' is 1, as '0x01' is; each value once",
            "Dissectors/valid.yaml:3: field 'x': valid min 100 is above max 0, so no value is valid",
            "Dissectors/loop.yaml:3: type 'loop' contains itself (loop → loop)",
        ] {
            XCTAssertTrue(r.stdout.contains(line), "\(line)\n\(r.stdout)")
        }
    }

    func testCheckRefusesNamesTheExportCannotRegister() throws {
        let (cwd, _) = try folder([
            "a.yaml": "protocol: a-b\n", "b.yaml": "protocol: a_b\n", "frame.yaml": "protocol: frame\n",
            "u.yaml": "protocol: _\n", "n.yaml": "protocol: \"123\"\n",
            "att.yaml": "protocol: my-att\ntitle: Bluetooth Attribute Protocol\n",
        ])
        let r = try run(["dissectors", "check"], in: cwd)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(
            r.stdout.contains(
                "Dissectors/b.yaml:1: protocol 'a_b' exports to Wireshark as a_b, as 'a-b' (Dissectors/a.yaml) does; rename one"
            ), r.stdout)
        XCTAssertTrue(
            r.stdout.contains(
                "Dissectors/frame.yaml:1: protocol: 'frame' is Wireshark's own protocol frame; the export could not register it"
            ), r.stdout)
        for line in [
            "Dissectors/u.yaml:1: protocol: '_' exports to Wireshark as _, which is shorter than the two characters Wireshark needs",
            "Dissectors/n.yaml:1: protocol: '123' exports to Wireshark as 123, which is all digits, which Wireshark refuses",
            "Dissectors/att.yaml:2: title: 'Bluetooth Attribute Protocol' is the title of a protocol of Wireshark's own;"
                + " the export could not register it",
        ] {
            XCTAssertTrue(r.stdout.contains(line), "\(line)\n\(r.stdout)")
        }
    }

    /// A flag named `ack wanted` exports to a plugin tshark loads (it refused "Invalid char in abbrev").
    func testAFlagNameWithASpaceExportsToAPluginTsharkLoads() throws {
        let (cwd, dissectors) = try folder([
            "ack.yaml": """
            protocol: ack-test
            flags: {0x01: ack wanted}
            messages:
              - {id: 1, name: M, seq: [{id: f, type: u1, flags: {0x02: more to come}}]}
            """
        ])
        let lua = cwd + "/ack.lua"
        let export = try run(["dissectors", "export", "--wireshark", dissectors, "-o", lua], in: cwd)
        XCTAssertEqual(export.status, 0, export.stderr)
        guard let fields = try runTshark(["-G", "fields", "-X", "lua_script:" + lua]) else {
            throw XCTSkip("tshark is not installed")
        }
        XCTAssertTrue(fields.contains { $0.contains("ack_test.flags.ack_wanted") }, "tshark did not load the plugin")
        XCTAssertTrue(fields.contains { $0.contains("ack_test.f.more_to_come") })
    }

    /// Frame flags whose names clean to one abbreviation (`é` and `ü` as `_`) each keep their own
    /// field, so tshark shows the bits the frame has (it showed one bit's value under another's name).
    func testFrameFlagsOfOneCleanedNameShowTheirOwnBits() throws {
        let (cwd, dissectors) = try folder([
            "coll.yaml": """
            protocol: coll
            flags: {0x01: "é", 0x02: "ü", 0x04: "a.b", 0x08: "a_b"}
            messages:
              - {id: 1, name: M}
            """
        ])
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        let bytes = Frame.encode(command: 1, sequence: 1, flags: 0x0a, payload: [])
        s.stream(handle: 0x40, attHandle: 0x11, .sent, bytes, values: [bytes.count])
        let capture = cwd + "/coll.btsnoop"
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        let lua = cwd + "/coll.lua"
        XCTAssertEqual(try run(["dissectors", "export", "--wireshark", dissectors, "-o", lua], in: cwd).status, 0)
        guard
            let out = try runTshark([
                "-X", "lua_script:" + lua, "-r", capture, "-2", "-R", "frame", "-T", "fields", "-e", "coll.flags._",
                "-e", "coll.flags.__2", "-e", "coll.flags.a_b", "-e", "coll.flags.a_b_2", "-d",
                "btatt.handle==0x0011,coll",
            ])
        else {
            throw XCTSkip("tshark is not installed")
        }
        // Flags 0x0a: ü and the second a_b set. tshark gives a boolean field as 0 or 1.
        XCTAssertEqual(out.last { !$0.allSatisfy { $0 == "\t" } }, "0\t1\t0\t1", out.joined(separator: "\n"))
    }

    /// Control characters of definition files reach the terminal escaped, as the timeline's do: a
    /// title, a name refused, an example that does not hold (stdout and warning), YAML's context line.
    func testControlCharactersOfDefinitionFilesAreShownEscaped() throws {
        let (cwd, _) = try folder([
            "title.yaml": "protocol: tt\ntitle: \"t\\e]0;HACKED\\a\\e[2J\"\n",
            "name.yaml": "protocol: \"b\\e[2Jad\"\n",
            "ex.yaml": """
            protocol: ex
            messages:
              - {id: 1, name: M, seq: [{id: v, type: str, size: eos}]}
            examples:
              - {hex: a5 01 01 01 00 02 41 42 2d, expect: {name: M, fields: {v: "\\e[2J\\u202e"}}}
            """,
            "yaml.yaml": "protocol: yy\nmessages: [\u{1b}[2J\n",
        ])
        let list = try run(["dissectors", "list", "--dissectors", "Dissectors/title.yaml"], in: cwd)
        XCTAssertTrue(
            list.stdout.contains("tt  [Dissectors/title.yaml]  t\\u{1b}]0;HACKED\\u{7}\\u{1b}[2J"), list.stdout)
        let check = try run(["dissectors", "check"], in: cwd)
        for line in [
            "Dissectors/name.yaml:1: protocol: 'b\\u{1b}[2Jad' is not a name",
            "Dissectors/ex.yaml:5: example: field v is '\"AB\"', expected '\\u{1b}[2J\\u{202e}'",
            "Dissectors/yaml.yaml:2: YAML: control characters are not allowed (0x1b)",
        ] {
            XCTAssertTrue(check.stdout.contains(line), "\(line)\n\(check.stdout)")
        }
        XCTAssertFalse(check.stdout.contains("\u{1b}") || list.stdout.contains("\u{1b}"))
        let timeline = try run(["timeline", "--dissectors", "Dissectors/ex.yaml", capture], in: cwd)
        XCTAssertTrue(
            timeline.stderr.contains(
                "warning: Dissectors/ex.yaml:5: example: field v is '\"AB\"', expected '\\u{1b}[2J"),
            timeline.stderr)
        XCTAssertFalse(timeline.stderr.contains("\u{1b}"))
    }

    /// A loaded definition whose rows each read a byte but give 4,098 values: btlens and the exported
    /// plugin both stop the message at 65,536 values, at the same payload offset.
    func testBtlensAndThePluginStopAMessageAtItsValues() throws {
        let (cwd, dissectors) = try folder([
            "cap.yaml": """
            protocol: cap
            types:
              wide: {seq: [{id: b, type: u1}, {id: e, type: bytes, size: 0, repeat: 4096}]}
            messages:
              - {id: 1, name: M, seq: [{id: n, type: u2le}, {id: rows, type: wide, repeat: n}]}
            """
        ])
        var s = LESession()
        s.connect(handle: 0x40, address: [1, 2, 3, 4, 5, 6])
        s.frame(
            handle: 0x40, attHandle: 0x11, .sent, command: 1, sequence: 1, payload: [0x10, 0x00] + Array(1...16),
            values: [13, 12])
        let capture = cwd + "/cap.btsnoop"
        try Data(s.bytes).write(to: URL(fileURLWithPath: capture))
        let said = "M: 65536 values decoded at payload offset 18; a message may produce no more"
        let r = try run(["timeline", "--decode-as", "att:0x0011=cap", capture], in: cwd)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("a5.payload.items: " + said), r.stdout)
        let lua = cwd + "/cap.lua"
        XCTAssertEqual(try run(["dissectors", "export", "--wireshark", dissectors, "-o", lua], in: cwd).status, 0)
        guard
            let out = try runTshark([
                "-X", "lua_script:" + lua, "-r", capture, "-2", "-R", "frame", "-V", "-d", "btatt.handle==0x0011,cap",
            ])
        else {
            throw XCTSkip("tshark is not installed")
        }
        XCTAssertTrue(out.contains { $0.contains(said) }, out.joined(separator: "\n"))
    }
}
