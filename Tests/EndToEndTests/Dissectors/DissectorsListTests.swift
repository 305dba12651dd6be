import Foundation
import XCTest

/// `btlens dissectors list` says what each dissector is: its title, its framing as the file writes
/// it (magic or delimiter, header fields, length, checksum by its catalogue name) and its pairing.
final class DissectorsListTests: XCTestCase {
    func testEachDissectorWithItsTitleFramingAndChecksum() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        protocol: acme-band
        title: ACME fitness band
        bind: {characteristics: [{uuid: fff3, role: command}, {uuid: fff1, framing: value, message: Mode}]}
        framing:
          magic: 0xaa55
          header: [command, sequence, {length: u2le}]
          length-counts: after-length
          checksum: {algorithm: {width: 16, poly: 0x1021, init: 0xffff}, covers: after-magic, endian: be}
          end: 0xef
        messages: [{id: 1, name: Ping}, {name: Mode}]
        pairing: {match: sequence}
        """.write(to: folder.appendingPathComponent("acme.yaml"), atomically: true, encoding: .utf8)
        try """
        protocol: sony-ish
        bind: {rfcomm-services: [96cc203e-5068-46ad-b32d-e316f5e069ba]}
        framing:
          delimiter: {start: 0x3e, end: 0x3c, escape: 0x3d, xor: 0x10}
          header: [command, sequence, {length: u4be}]
          checksum: sum8
        messages: [{id: 1, name: Ping}]
        """.write(to: folder.appendingPathComponent("sony.yaml"), atomically: true, encoding: .utf8)
        let run = try runCLI(["dissectors", "list", "--dissectors", folder.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let acme = folder.appendingPathComponent("acme.yaml").path
        let sony = folder.appendingPathComponent("sony.yaml").path
        // The CRC given by its parameters is the catalogue's CRC-16/IBM-3740, and is named so.
        XCTAssertEqual(
            Array(lines.drop { !$0.hasPrefix("acme-band") }.prefix(5)),
            [
                "acme-band  [\(acme)]  ACME fitness band",
                "    framing: magic 0xaa55, command, sequence, length u2le (counts after-length), "
                    + "crc-16/ibm-3740 over after-magic (be), end 0xef",
                "    pairs responses (sequence, timeout 1000 ms)",
                "sony-ish  [\(sony)]",
                "    framing: delimiter {start 0x3e, end 0x3c, escape 0x3d xor 0x10}, command, sequence, length u4be, "
                    + "sum8 over frame",
            ])
        XCTAssertTrue(lines.contains("  characteristic fff1, whole value → acme-band"), run.stdout)
    }

    /// `check` and `export` take `--dissectors` as every other command does; `check` finding
    /// nothing fails and says where it looked.
    func testCheckAndExportTakeDissectorsAndNothingFoundFails() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-none-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try runCLI(["dissectors", "check"], environment: ["XDG_CONFIG_HOME": empty.path], cwd: empty.path)
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(
            none.stdout, "no definition files found (looked in \(empty.path)/btlens/dissectors, Dissectors)\n")
        let shipped = DissectorEndToEndTests.shipped
        let check = try runCLI(["dissectors", "check", "--dissectors", shipped + "/lawaken-lamp.yaml"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(
            check.stdout.hasSuffix("lawaken-lamp: 3 messages, 1 binding, 1 of 1 examples hold\n"), check.stdout)
        let export = try runCLI(
            ["dissectors", "export", "--wireshark", "--dissectors", shipped + "/lawaken-lamp.yaml", "-o", "-"])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stdout.contains("btlens.register"), String(export.stdout.prefix(200)))
    }
}
