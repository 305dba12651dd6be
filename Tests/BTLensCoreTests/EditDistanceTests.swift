import BTLensCore
import XCTest

final class EditDistanceTests: XCTestCase {
    /// Insertions, deletions and substitutions each count one; the empty word is as far as the other's length.
    func testLevenshtein() {
        XCTAssertEqual(EditDistance.levenshtein("comand", "command"), 1)
        XCTAssertEqual(EditDistance.levenshtein("stat", "stats"), 1)
        XCTAssertEqual(EditDistance.levenshtein("sequnce", "sequence"), 1)
        XCTAssertEqual(EditDistance.levenshtein("kitten", "sitting"), 3)
        XCTAssertEqual(EditDistance.levenshtein("", "abc"), 3)
        XCTAssertEqual(EditDistance.levenshtein("abc", ""), 3)
        XCTAssertEqual(EditDistance.levenshtein("a5", "a5"), 0)
    }
}
