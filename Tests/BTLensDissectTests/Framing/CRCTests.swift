import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// CRCs by their parameters: the catalogue's check values, and the table against the definition
/// of a CRC computed a bit at a time.
final class CRCTests: XCTestCase {
    /// Each entry of CRCCatalogue holds the CRC catalogue's check value: the CRC of the ASCII bytes
    /// "123456789" (reveng's "Catalogue of parametrised CRC algorithms").
    func testEveryCatalogueEntryGivesItsCheckValue() {
        let input = Array("123456789".utf8)
        for entry in CRCCatalogue.entries {
            XCTAssertEqual(entry.crc.compute(input), entry.check, entry.names[0])
        }
        XCTAssertEqual(CRCCatalogue.entries.count, 24)
    }

    func testNamesAndAliasesFindTheSameCRC() {
        XCTAssertEqual(CRCCatalogue.named("CRC-16/CCITT-FALSE"), CRCCatalogue.named("crc-16/ibm-3740"))
        XCTAssertEqual(CRCCatalogue.named("crc-32c"), CRCCatalogue.named("crc-32/iscsi"))
        XCTAssertEqual(CRCCatalogue.named("crc-16/x-25")?.name, "crc-16/ibm-sdlc")
        XCTAssertNil(CRCCatalogue.named("crc-17"))
        let names = CRCCatalogue.names
        XCTAssertEqual(Set(names).count, names.count, "a name is given to two CRCs")
    }

    /// The table-driven register against the CRC's definition: the message, each byte reflected
    /// when `reflectIn`, shifted through the register a bit at a time (Williams, "A painless guide
    /// to CRC error detection algorithms", §15), for random parameters and data of every width.
    func testTheTableAgreesWithTheBitwiseDefinition() {
        var rng = SplitMix(seed: 41)
        for width in CRC.widths {
            let mask = UInt64(UInt32.max >> (32 - width))
            for _ in 0..<200 {
                func value() -> UInt32 { UInt32(rng.next() & mask) }
                let crc = CRC(
                    width: width, polynomial: value() | 1, initial: value(), reflectIn: rng.below(2) == 0,
                    reflectOut: rng.below(2) == 0, xorOut: value())!
                let data = rng.bytes(rng.below(40))
                XCTAssertEqual(crc.compute(data), Self.bitwise(crc, data), "\(crc)")
            }
        }
    }

    func testParametersThatDoNotFitAreRefused() {
        XCTAssertNil(CRC(width: 12, polynomial: 0x80f, initial: 0, reflectIn: false, reflectOut: false, xorOut: 0))
        XCTAssertNil(CRC(width: 8, polynomial: 0x107, initial: 0, reflectIn: false, reflectOut: false, xorOut: 0))
        XCTAssertNil(
            CRC(width: 16, polynomial: 0x1021, initial: 0x10000, reflectIn: false, reflectOut: false, xorOut: 0))
        XCTAssertNil(
            CRC(width: 16, polynomial: 0x1021, initial: 0, reflectIn: false, reflectOut: false, xorOut: 0x1_0000))
    }

    /// An empty input gives the initial register, reflected as the output is, XORed.
    func testAnEmptyInputGivesTheInitialValue() {
        XCTAssertEqual(CRCCatalogue.named("crc-16/ccitt-false")?.compute([]), 0xffff)
        XCTAssertEqual(CRCCatalogue.named("crc-32")?.compute([]), 0)
        XCTAssertEqual(CRCCatalogue.named("crc-8/autosar")?.compute([]), 0)
    }

    private static func bitwise(_ c: CRC, _ data: [UInt8]) -> UInt32 {
        let mask = UInt64(UInt32.max >> (32 - c.width))
        var register = UInt64(c.initial)
        for byte in data {
            let b = c.reflectIn ? reflect(UInt64(byte), 8) : UInt64(byte)
            register ^= b << (c.width - 8)
            for _ in 0..<8 {
                let top = register >> (c.width - 1) & 1 == 1
                register = (register << 1) & mask
                if top { register ^= UInt64(c.polynomial) }
            }
        }
        if c.reflectOut { register = reflect(register, c.width) }
        return UInt32(register) ^ c.xorOut
    }

    private static func reflect(_ v: UInt64, _ width: Int) -> UInt64 {
        (0..<width).reduce(0) { r, i in r | (v >> i & 1) << (width - 1 - i) }
    }
}
