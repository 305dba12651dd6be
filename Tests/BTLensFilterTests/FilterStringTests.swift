import BTLensCore
import XCTest

@testable import BTLensFilter

/// What `matches` hands PCRE2, and its budget.
final class FilterStringTests: XCTestCase {
    /// A pattern that backtracks without end stops at its budget, as not found.
    func testAMatchPastItsBudgetIsNotFound() throws {
        let regex = try SharedRegex("(a+)+$", use: "test")
        let start = ContinuousClock.now
        XCTAssertEqual(regex.search(String(repeating: "a", count: 128) + "!"), .overBudget)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
        XCTAssertEqual(regex.search("xaa"), .found([1..<3]))
        XCTAssertEqual(regex.search("b"), .notFound)
    }
}
