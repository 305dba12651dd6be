import BTLensFilter
import XCTest

/// The examples `btlens help filters` gives compile, with the escapes a string takes.
final class FilterExamplesTests: XCTestCase {
    func testTheHelpsExamplesCompile() throws {
        let help = try runCLI(["help", "filters"]).stdout
        let examples = help.components(separatedBy: "-Y '").dropFirst().compactMap { $0.split(separator: "'").first }
        XCTAssertGreaterThan(examples.count, 10)
        for example in examples {
            XCTAssertNoThrow(try DisplayFilter(String(example)), String(example))
        }
    }
}
