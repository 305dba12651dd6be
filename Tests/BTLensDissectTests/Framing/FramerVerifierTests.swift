import BTLensTestSupport
import XCTest

/// The shared verifier finds a framer that loses state between pieces, and passes one that keeps it.
final class FramerVerifierTests: XCTestCase {
    /// Length-prefixed records: a length byte, then that many bytes.
    static func records(_ pieces: [[UInt8]], keepsState: Bool) -> [[UInt8]] {
        var pending: [UInt8] = []
        var out: [[UInt8]] = []
        for piece in pieces {
            // A careless framer forgets a record cut short at the end of a piece.
            pending = keepsState ? pending + piece : piece
            while let length = pending.first, pending.count > Int(length) {
                out.append(Array(pending[1..<1 + Int(length)]))
                pending.removeFirst(Int(length) + 1)
            }
        }
        return out
    }

    func testAFramerThatKeepsStateAgrees() {
        let input: [UInt8] = [2, 0xaa, 0xbb, 0, 3, 1, 2, 3]
        XCTAssertEqual(Self.records([input], keepsState: true), [[0xaa, 0xbb], [], [1, 2, 3]])
        XCTAssertEqual(FramerVerifier.disagreements(input) { Self.records($0, keepsState: true) }, [])
    }

    func testAFramerThatForgetsAPartialRecordIsCaught() {
        let input: [UInt8] = [2, 0xaa, 0xbb, 1, 0xcc]
        XCTAssertEqual(
            FramerVerifier.disagreements(input) { Self.records($0, keepsState: false) },
            ["byte by byte", "split at 1", "split at 2", "split at 4"])
    }
}
