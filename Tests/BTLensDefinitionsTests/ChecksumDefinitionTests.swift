import BTLensDissect
import XCTest

@testable import BTLensDefinitions

/// `checksum:` in a definition: CRCs by catalogue name or by parameters, replayed on examples
/// whose CRCs were computed apart from btlens (a bitwise Python implementation of the catalogue's
/// model), and the load errors of parameters that describe no CRC.
final class ChecksumDefinitionTests: XCTestCase {
    func testCatalogueNamesCheckTheirFrames() throws {
        // fd, command 01, length 0002 (u2le), payload aa bb, CRC-16/XMODEM of 01 02 00 aa bb = 0xa33c, little-endian.
        // 7e, command 10, length 03, payload 01 02 03, CRC-32 of the payload = 0x55bc801d, big-endian.
        let d = try load(
            """
            protocol: tt
            framing:
              magic: 0xfd
              header: [command, {length: u2le}]
              checksum: {algorithm: crc-16/xmodem, covers: after-magic, endian: le}
            messages:
              - {id: 1, name: Ping, seq: [{id: data, type: bytes}]}
            examples:
              - hex: fd 01 02 00 aa bb 3c a3
                expect: {name: Ping}
            """)
        XCTAssertEqual(ExampleReplay.check(d).map(\.description), [])
        let e = try load(
            """
            protocol: tt
            framing:
              magic: 0x7e
              header: [command, length]
              checksum: {algorithm: CRC-32, covers: payload}
            messages:
              - {id: 0x10, name: Data, seq: [{id: data, type: bytes}]}
            examples:
              - hex: 7e 10 03 01 02 03 55 bc 80 1d
              - hex: 7e 10 03 01 02 03 55 bc 80 1e
            """)
        XCTAssertEqual(
            ExampleReplay.check(e).map(\.description),
            ["t.yaml:10: example: a5.checksum.bad: command 0x10: checksum 0x55bc801e, expected 0x55bc801d"])
    }

    func testParametersDescribeACRCTheCatalogueLacks() throws {
        // CRC-16 with polynomial 0x8bb7, initial 0, no reflection (the catalogue's CRC-16/T10-DIF,
        // which btlens does not name) of 20 01 05 = 0xcac6.
        let d = try load(
            """
            protocol: tt
            framing:
              magic: 0x55
              header: [command, length]
              checksum: {algorithm: {width: 16, poly: 0x8bb7}, covers: after-magic}
            messages:
              - {id: 0x20, name: Set, seq: [{id: level, type: u1}]}
            examples:
              - hex: 55 20 01 05 ca c6
                expect: {name: Set}
            """)
        XCTAssertEqual(ExampleReplay.check(d).map(\.description), [])
        guard case .frames(let format) = d.framing, case .crc(let c)? = format.checksum?.algorithm else {
            return XCTFail("no CRC")
        }
        XCTAssertNil(c.name)
    }

    /// Parameters that are a catalogue CRC's are named as it: `reflect-out` follows `reflect-in`.
    func testParametersOfACatalogueCRCTakeItsName() throws {
        let d = try load(
            """
            protocol: tt
            framing: {magic: 0x55, header: [command, length], checksum: {algorithm: {width: 16, poly: 0x1021, reflect-in: true}}}
            """)
        guard case .frames(let format) = d.framing else { return XCTFail("no frames") }
        XCTAssertEqual(format.checksum?.algorithm.name, "crc-16/kermit")
    }

    func testParametersThatDescribeNoCRCAreLoadErrors() {
        func error(_ algorithm: String) -> String {
            let yaml =
                "protocol: tt\nframing:\n  magic: 0x55\n  header: [command, length]\n  checksum:\n    algorithm: \(algorithm)\n"
            do {
                _ = try DefinitionParser.parse(text: yaml, file: "x.yaml")
                return "loaded"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(
            error("{width: 12, poly: 0x80f}"), "x.yaml:6: framing checksum algorithm width: 12; expected 8, 16 or 32")
        XCTAssertEqual(
            error("{width: 8, poly: 0x06}"),
            "x.yaml:6: framing checksum algorithm poly: 0x06; expected an odd polynomial")
        XCTAssertEqual(
            error("{width: 16, poly: 0x1021, init: 0x10000}"),
            "x.yaml:6: framing checksum algorithm init (16 bits): 65536 is outside 0…65535")
        XCTAssertEqual(
            error("{width: 16, poly: 0x1021, refin: true}"),
            "x.yaml:6: unknown key 'refin' in framing checksum algorithm; expected one of: width, poly, init, reflect-in, reflect-out, xor-out"
        )
        XCTAssertEqual(error("{poly: 0x1021}"), "x.yaml:6: framing checksum algorithm: missing 'width'")
    }

    private func load(_ yaml: String) throws -> DefinitionDissector {
        try DefinitionParser.parse(text: yaml, file: "t.yaml")
    }
}
