import BTLensCore
import BTLensDissect
import Foundation
import XCTest

@testable import BTLensDefinitions

/// Folders of definitions: loading, conflicting bindings, overrides of built-ins, example replay.
final class LoaderTests: XCTestCase {
    var folder: String = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "btlens-defs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
    }

    func testFilesAreReadInNameOrderAndOthersIgnored() throws {
        try write("b.yaml", "protocol: bb\n")
        try write("a.yml", "protocol: aa\n")
        try write("notes.txt", "not a definition")
        let loaded = DefinitionLoader.load([folder], required: true)
        XCTAssertEqual(loaded.errors, [])
        XCTAssertEqual(loaded.files.map { ($0 as NSString).lastPathComponent }, ["a.yml", "b.yaml"])
        XCTAssertEqual(loaded.table.dissectors.map(\.name), ["sig-characteristics", "aa", "bb"])
    }

    func testConflictingBindingNamesBothPlaces() throws {
        try write("a.yaml", "protocol: aa\nbind:\n  characteristics: [fff3]\n")
        try write("b.yaml", "protocol: bb\nbind:\n  ea-protocols: [com.x]\n  characteristics: [fff3]\n")
        let loaded = DefinitionLoader.load([folder], required: true)
        XCTAssertEqual(
            loaded.errors.map(\.description),
            [
                "\(folder)/b.yaml:4: conflicting binding: characteristic fff3 is already bound to 'aa' (\(folder)/a.yaml:3)"
            ])
        XCTAssertEqual(
            loaded.table.dissectors.map(\.name), ["sig-characteristics", "aa"], "the broken file is left out whole")
    }

    func testABuiltInBindingIsTakenOnlyWithOverrideAndOnlyOnTheDefinitionsDevices() throws {
        try write(
            "a.yaml",
            "protocol: aa\nmessages: [{name: L}]\nbind:\n  characteristics:\n    - {uuid: 2a19, framing: value, message: L}\n"
        )
        XCTAssertEqual(
            DefinitionLoader.load([folder], required: true).errors.map(\.message),
            [
                "conflicting binding: characteristic 2a19 is already bound to 'sig-characteristics' (built-in); add `override: true` (and bind: devices:) to replace the built-in binding on your devices"
            ])
        // Every device's Battery Level taken over by one vendor's file: refused.
        try write(
            "a.yaml",
            "protocol: aa\nmessages: [{name: L}]\nbind:\n  characteristics:\n    - {uuid: 2a19, framing: value, message: L, override: true}\n"
        )
        XCTAssertEqual(
            DefinitionLoader.load([folder], required: true).errors.map(\.message),
            [
                "conflicting binding: characteristic 2a19 is already bound to 'sig-characteristics' (built-in); `override: true` takes a built-in binding over only on the definition's own devices: add bind: devices:"
            ])
        try write(
            "a.yaml",
            "protocol: aa\nmessages: [{name: L}]\nbind:\n  devices: [\"AA:BB\"]\n  characteristics:\n    - {uuid: 2a19, framing: value, message: L, override: true}\n"
        )
        let loaded = DefinitionLoader.load([folder], required: true)
        XCTAssertEqual(loaded.errors, [])
        let mine = DissectorTable.Device(address: BDAddr(wire: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]))
        let other = DissectorTable.Device(address: BDAddr(wire: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0x12]))
        XCTAssertEqual(loaded.table.lookup(.characteristic(.bit16(0x2a19)), on: mine)?.dissector.name, "aa")
        XCTAssertEqual(
            loaded.table.lookup(.characteristic(.bit16(0x2a19)), on: other)?.dissector.name, "sig-characteristics")
        XCTAssertEqual(
            loaded.table.lookup(.characteristic(.bit16(0x2a26)), on: mine)?.dissector.name, "sig-characteristics")
    }

    /// Two vendors on the generic 0xFFF3: each on its own devices, by address prefix or advertised name.
    func testBindingsForSomeDevicesApplyOnlyThere() throws {
        try write("a.yaml", "protocol: aa\nbind:\n  devices: {addresses: [\"AA:BB:CC\"]}\n  characteristics: [fff3]\n")
        try write("b.yaml", "protocol: bb\nbind:\n  devices: {names: [AX-]}\n  characteristics: [fff3]\n")
        try write("c.yaml", "protocol: cc\nbind:\n  characteristics: [fff3]\n")
        let loaded = DefinitionLoader.load([folder], required: true)
        XCTAssertEqual(loaded.errors, [])
        let fff3 = DissectorBinding.Key.characteristic(.bit16(0xfff3))
        let aurora = BDAddr(wire: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        XCTAssertEqual(loaded.table.lookup(fff3, on: .init(address: aurora))?.dissector.name, "aa")
        XCTAssertEqual(
            loaded.table.lookup(fff3, on: .init(address: BDAddr(wire: [1, 2, 3, 4, 5, 6]), name: "AX-200"))?.dissector
                .name, "bb")
        XCTAssertEqual(
            loaded.table.lookup(fff3, on: .init(name: "Other"))?.dissector.name, "cc",
            "the binding for every device, elsewhere")
        XCTAssertEqual(loaded.table.forDevice(.init(name: "AX-200"))?.name, "bb")
        XCTAssertNil(loaded.table.forDevice(.init(name: "Other")))
        // The same devices twice is a conflict.
        try write("d.yaml", "protocol: dd\nbind:\n  devices: [\"AA:BB\"]\n  characteristics: [fff3]\n")
        XCTAssertEqual(
            DefinitionLoader.load([folder], required: true).errors.map(\.description),
            [
                "\(folder)/d.yaml:4: conflicting binding: characteristic fff3 is already bound to 'aa' for devices AA:BB:CC* (\(folder)/a.yaml:4)"
            ])
    }

    /// A file of ./Dissectors that binds what the user's file binds is left out with a note, not exit 2.
    func testTheUsersDefinitionsWinOverTheCurrentFoldersWithANote() throws {
        let user = folder + "/user"
        let here = folder + "/here"
        for f in [user, here] { try FileManager.default.createDirectory(atPath: f, withIntermediateDirectories: true) }
        try "protocol: mine\nbind:\n  characteristics: [fff3]\n".write(
            toFile: user + "/mine.yaml", atomically: true, encoding: .utf8)
        try "protocol: example\nbind:\n  characteristics: [fff3]\n".write(
            toFile: here + "/example.yaml", atomically: true, encoding: .utf8)
        try "protocol: other\nbind:\n  characteristics: [fff9]\n".write(
            toFile: here + "/other.yaml", atomically: true, encoding: .utf8)
        let loaded = DefinitionLoader.load([.init(user, .user), .init(here, .currentFolder)])
        XCTAssertEqual(loaded.errors, [])
        XCTAssertEqual(loaded.table.dissectors.map(\.name), ["sig-characteristics", "mine", "other"])
        XCTAssertEqual(
            loaded.table.sources.notes,
            [
                "\(here)/example.yaml is not loaded, as yours win over the current folder's: "
                    + "characteristic fff3 is already bound to 'mine' (\(user)/mine.yaml:3)"
            ])
        XCTAssertEqual(loaded.table.sources.folders.map(\.files), [["mine.yaml"], ["other.yaml"]])
        // Within one folder a clash is still an error.
        try "protocol: again\nbind:\n  characteristics: [fff9]\n".write(
            toFile: here + "/p.yaml", atomically: true, encoding: .utf8)
        XCTAssertEqual(
            DefinitionLoader.load([.init(user, .user), .init(here, .currentFolder)]).errors.map(\.message),
            ["conflicting binding: characteristic fff9 is already bound to 'other' (\(here)/other.yaml:3)"])
    }

    func testAFailingExampleLoadsWithAWarning() throws {
        try write("a.yaml", "protocol: aa\nmessages: [{id: 1, name: M}]\nexamples:\n  - hex: a5 01 01 00 00 00 00\n")
        let loaded = DefinitionLoader.load([folder], required: true)
        XCTAssertEqual(loaded.errors, [])
        XCTAssertEqual(loaded.table.dissectors.map(\.name), ["sig-characteristics", "aa"])
        XCTAssertEqual(
            loaded.warnings.map(\.description),
            ["\(folder)/a.yaml:4: example: a5.checksum.bad: command 0x01 sequence 0: checksum 0x00, expected 0xa7"])
        XCTAssertEqual(
            loaded.table.sources.notes, ["\(folder)/a.yaml: 1 of 1 examples do not hold (btlens dissectors check)"])
    }

    func testTwoFilesWithOneName() throws {
        try write("a.yaml", "protocol: same\n")
        try write("b.yaml", "protocol: same\n")
        XCTAssertEqual(
            DefinitionLoader.load([folder], required: true).errors.map(\.message),
            ["dissector name 'same' is already used by \(folder)/a.yaml"])
    }

    func testMissingFoldersAreErrorsOnlyWhenNamed() {
        XCTAssertEqual(
            DefinitionLoader.load([folder + "/nope"], required: true).errors.map(\.message), ["no such file or folder"])
        XCTAssertEqual(DefinitionLoader.load([folder + "/nope"], required: false).errors, [])
    }

    func testDefaultFoldersTheUsersFirst() {
        XCTAssertEqual(
            DefinitionLoader.defaultFolders(environment: ["HOME": "/home/u"]),
            [.init("/home/u/.config/btlens/dissectors", .user), .init("Dissectors", .currentFolder)])
        XCTAssertEqual(
            DefinitionLoader.defaultFolders(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg"]),
            [.init("/cfg/btlens/dissectors", .user), .init("Dissectors", .currentFolder)])
    }

    func testUUIDsInEveryForm() throws {
        try write(
            "a.yaml",
            """
            protocol: aa
            bind:
              characteristics: [0xFFF3, 00002a37-0000-1000-8000-00805f9b34fb, 6e400002-b5a3-f393-e0a9-e50e24dcca9e, 12345678]
            """)
        let t = DefinitionLoader.load([folder], required: true).table
        XCTAssertNotNil(t.lookup(.characteristic(.bit16(0xfff3))))
        XCTAssertNotNil(t.lookup(.characteristic(.bit16(0x2a37))), "a 128-bit UUID on the base UUID is its 16-bit form")
        XCTAssertNotNil(
            t.lookup(
                .characteristic(
                    .bit128([
                        0x6e, 0x40, 0x00, 0x02, 0xb5, 0xa3, 0xf3, 0x93, 0xe0, 0xa9, 0xe5, 0x0e, 0x24, 0xdc, 0xca, 0x9e,
                    ]))))
        XCTAssertNotNil(t.lookup(.characteristic(.bit32(0x1234_5678))))
    }

    func testExamplesAreReplayed() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                enums: {preset: {0: flat, 1: bass}}
                messages:
                  - {id: 0x20, name: SetPreset, seq: [{id: preset, type: u1, enum: preset}]}
                examples:
                  - hex: a5 01 20 07 00 01 01 cf
                    expect: {name: SetPreset, fields: {preset: bass}}
                  - hex: a5 01 20 07 00 01 00 ce
                    expect: {fields: {preset: bass}}
                  - hex: a5 01 20 07 00 01 01 00
                  - hex: a5 01 20 07 00 02 01 01 d1
                  - hex: a5 01 21 07 00 00 ce
                    expect: {name: SetPreset}
                """, file: "t.yaml")
        XCTAssertEqual(
            ExampleReplay.check(d).map(\.description),
            [
                "t.yaml:8: example: field preset is 'flat', expected 'bass'",
                "t.yaml:10: example: a5.checksum.bad: command 0x20 sequence 7: checksum 0x00, expected 0xcf",
                "t.yaml:11: example: a5.payload.extra: SetPreset: 1 byte after the last field (payload offset 1)",
                "t.yaml:12: example: decoded as no message, expected SetPreset",
            ])
    }
}
