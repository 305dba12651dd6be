import XCTest

/// The examples of issue 42's framings (Galaxy Buds, Govee, ESP BluFi) as a user runs them:
/// `dissectors check` replays each one's examples, and `dissectors list` says a value's checksum.
final class FramingExamplesTests: XCTestCase {
    let examples = DissectorEndToEndTests.shipped + "/examples/"

    func testTheFramingExamplesHold() throws {
        for (file, count) in [("galaxy-buds.yaml", 3), ("govee.yaml", 4), ("esp-blufi.yaml", 4)] {
            let run = try runCLI(["dissectors", "check", examples + file])
            XCTAssertEqual(run.status, 0, file + run.stderr)
            XCTAssertTrue(run.stdout.contains("\(count) of \(count) examples hold"), run.stdout)
        }
    }

    func testTheListSaysAValuesChecksum() throws {
        let run = try runCLI(["dissectors", "list", "--dissectors", examples + "govee.yaml"])
        XCTAssertTrue(
            run.stdout.contains(
                "govee  [\(examples)govee.yaml]  Govee LED lights (20-byte commands)\n"
                    + "    framing: event byte + payload + xor8 last\n"), run.stdout)
    }
}
