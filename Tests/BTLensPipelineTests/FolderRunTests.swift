import Foundation
import XCTest

@testable import BTLensPipeline

final class FolderRunTests: XCTestCase {
    func testFilesOfAFolderSortedWithoutHiddenOnesOrFolders() throws {
        let dir = NSTemporaryDirectory() + "folder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["b.log", "a.pklg", ".hidden"] {
            _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data())
        }
        XCTAssertEqual(FolderRun.files(dir), [dir + "/a.pklg", dir + "/b.log"])
        XCTAssertNil(FolderRun.files(dir + "/a.pklg"), "a file is not a folder")
    }

    /// Work finishing in any order still comes back in file order, and every file is reported done.
    func testResultsComeBackInFileOrder() {
        let files = (0..<40).map { String(format: "%02d", $0) }
        let seen = Counter()
        let results = FolderRun.run(files, progress: { done, total in seen.note(done, total) }) { name in
            usleep(useconds_t((40 - (Int(name) ?? 0)) * 200))
            return "result " + name
        }
        XCTAssertEqual(results, files.map { "result " + $0 })
        XCTAssertEqual(seen.last, 40)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var last = 0
        func note(_ done: Int, _ total: Int) {
            lock.lock()
            last = max(last, done)
            lock.unlock()
        }
    }
}
