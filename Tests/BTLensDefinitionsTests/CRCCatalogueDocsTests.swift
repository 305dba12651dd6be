import BTLensCore
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// Dissectors/README.md's table of CRC names is the catalogue btlens reads: same names, same
/// parameters, same check values, row for row.
final class CRCCatalogueDocsTests: XCTestCase {
    func testTheREADMETableIsTheCatalogue() throws {
        let readme = try String(
            contentsOf: packageRoot.appendingPathComponent("Dissectors/README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("| `crc") }
        let expected = CRCCatalogue.entries.map { e -> String in
            let c = e.crc
            func hex(_ v: UInt32) -> String { Hex.value(v, width: c.width / 4) }
            let also = e.names.dropFirst().map { "`\($0)`" }.joined(separator: ", ")
            let cells = [
                "`\(e.names[0])`", also, "\(c.width)", hex(c.polynomial), hex(c.initial), c.reflectIn ? "yes" : "no",
                c.reflectOut ? "yes" : "no", hex(c.xorOut), hex(e.check),
            ]
            return "| " + cells.joined(separator: " | ") + " |"
        }
        XCTAssertEqual(rows, expected)
    }
}
