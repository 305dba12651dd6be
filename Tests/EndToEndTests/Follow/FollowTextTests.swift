import BTLensTestSupport
import XCTest

/// A text file followed (a log given in place of --app-log) is refused at once, as timeline refuses
/// what it cannot read: its summary would be searched for to an end a followed file never has.
final class FollowTextTests: XCTestCase {
    func testAFollowedTextFileIsRefusedNotWaitedFor() throws {
        let run = try runCLI(["follow", "Captures/ble_app_log.logcat.txt"], timeout: 30, cwd: packageRoot.path)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains("follow reads btsnoop, PacketLogger, pcap and pcapng as they grow"), run.stderr)
        XCTAssertEqual(run.stdout, "")
    }
}
