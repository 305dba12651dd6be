import BTLensTestSupport
import Foundation
import XCTest

/// Rules of the code that a reviewer would otherwise have to remember, checked over every Swift
/// file of Sources and Tests.
final class SourceRulesTests: XCTestCase {
    static let root = packageRoot
    static let shim = "Sources/BTLensCore/OS.swift"

    /// Each Swift file's path (from the package's root) and its text.
    static func swiftFiles(under folders: [String] = ["Sources", "Tests"]) throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let walk = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let relative as String in walk where relative.hasSuffix(".swift") {
                let text = try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)
                files.append(("\(folder)/\(relative)", text))
            }
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// Lines that are code, not comments, with their 1-based numbers.
    static func codeLines(_ text: String) -> [(number: Int, text: String)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            line.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? nil : (index + 1, String(line))
        }
    }

    /// Only the shim names the C library, so btlens builds on macOS as on Linux: every other file
    /// reaches the operating system through `OS`.
    func testOnlyTheShimNamesTheCLibrary() throws {
        let platform = try NSRegularExpression(pattern: #"\b(import (Glibc|Darwin)|(Glibc|Darwin)\.\w)"#)
        // Calls whose types or names differ between the platforms, or that the shim exists to hold.
        let calls = [
            "strerror", "sigaction", "sigemptyset", "pthread_sigmask", "fcntl", "ioctl", "mkstemp",
            "getaddrinfo", "freeaddrinfo", "clock_gettime", "_exit", "isatty", "lseek", "pread", "fstat", "poll",
            "socket", "getsockopt", "setsockopt", "fopen", "fdopen", "fmemopen", "fwrite",
            "fread", "fflush", "fclose", "ftell", "ferror", "btlens_heap_in_use", "btlens_heap_trim",
        ]
        let call = try NSRegularExpression(
            pattern: #"(?<![\w.])(Foundation\.)?("# + calls.joined(separator: "|") + #")\("#)
        let qualified = try NSRegularExpression(pattern: #"\bFoundation\.(read|write|open|close|exit|kill|dup)\("#)
        var found: [String] = []
        for file in try Self.swiftFiles() where file.path != Self.shim {
            for (number, text) in Self.codeLines(file.text) {
                let range = NSRange(text.startIndex..., in: text)
                for rule in [platform, call, qualified] where rule.firstMatch(in: text, range: range) != nil {
                    found.append("\(file.path):\(number): \(text.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertEqual(found, [], "call these through OS (\(Self.shim))")
    }

    /// The C targets call the C library themselves: each that calls what differs between glibc and
    /// macOS (fopencookie, mallinfo2, malloc_trim) has a macOS branch beside it.
    func testEveryCTargetHasAMacOSBranch() throws {
        let sources = packageRoot.appendingPathComponent("Sources")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".c") }
        XCTAssertEqual(files.sorted(), ["CCountingFile/counting_file.c", "CHeapUsage/heap_usage.c"])
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            XCTAssertTrue(text.contains("#if defined(__APPLE__)") || text.contains("#elif defined(__APPLE__)"), file)
        }
    }

    /// The modules in layers, as docs/architecture.md draws them: a module imports only modules of
    /// lower layers, so Definitions never reach Report, nor Report the Pipeline's threads.
    static let layers: [[String]] = [
        ["BTLensCore"], ["BTLensCrypto", "BTLensCapture"], ["BTLensDissect"],
        ["BTLensAppLog", "BTLensDefinitions", "BTLensFilter", "BTLensReport"],
        ["BTLensPipeline", "BTLensServe", "BTLensTestSupport"], ["BTLensFuzz", "BTLensStore"],
    ]

    func testModulesImportOnlyLowerLayers() throws {
        let layer = Dictionary(uniqueKeysWithValues: Self.layers.enumerated().flatMap { i, l in l.map { ($0, i) } })
        let imports = try NSRegularExpression(
            pattern: #"^(?:@testable )?import (BTLens\w+)"#, options: .anchorsMatchLines)
        var found: [String] = []
        for file in try Self.swiftFiles(under: ["Sources"]) {
            let module = String(file.path.split(separator: "/")[1])
            guard let own = layer[module] else { continue }
            let text = file.text
            for match in imports.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let imported = String(text[range])
                if layer[imported].map({ $0 >= own }) ?? true { found.append("\(file.path): import \(imported)") }
            }
        }
        XCTAssertEqual(found, [])
    }

    /// Small files and functions that fit on a screen: none over 500 lines or 80 lines.
    func testNoFileOver500LinesNorFunctionOver80() throws {
        var found: [String] = []
        for file in try Self.swiftFiles(under: ["Sources"]) {
            let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.count > 500 { found.append("\(file.path): \(lines.count) lines") }
            for function in FunctionLengths.measure(lines.map(String.init)) where function.lines > 80 {
                found.append("\(file.path):\(function.line): \(function.lines) lines")
            }
        }
        XCTAssertEqual(found, [])
    }

    /// The speed tricks that turn off a check of the compiler or the runtime stay in a few files,
    /// each justified where it is used by a benchmark figure or a single owning thread; anything
    /// else shares state through `Mutex`, `Atomic` or `SharedRegex`, which the compiler checks.
    static let trickFiles: Set<String> = [
        "Sources/BTLensCore/SingleOwnerCell.swift",  // the per-record state's cell, below
        "Sources/BTLensDissect/ATT/ATTLink.swift",  // per ATT PDU; the bearer reached unretained
        "Sources/BTLensDissect/Dissectors/BoundDissector.swift",  // per frame, and read by the renderer
        "Sources/BTLensPipeline/Relay.swift",  // the batches handed between threads
        "Sources/BTLensCapture/FollowSource.swift",  // the stop flag a signal handler sets
        "Sources/BTLensServe/LiveHub.swift",  // the hub's state, under a lock the thread sanitizer sees
    ]

    /// The per-record state that one thread owns, in `SingleOwnerCell` (no runtime exclusivity
    /// check): without it `stats` runs 12 % more instructions (callgrind).
    static let cellFiles: Set<String> = [
        "Sources/BTLensCore/OutputSink.swift",  // the write buffer's count, per line
        "Sources/BTLensReport/JSONLRenderer.swift",  // the JSONL writer's state, per event
        "Sources/BTLensReport/Stats.swift",  // the collector's counters
        "Sources/BTLensReport/DiagnosticThrottle.swift",  // per event rendered
        "Sources/BTLensDissect/LayerContext.swift",  // the analyzer's tally
        "Sources/BTLensDissect/ATT/ATTLayer.swift",  // the tally, per ATT PDU
        "Sources/BTLensDissect/Dissectors/DissectorLayer.swift",  // the tally, per frame
        "Sources/BTLensDissect/L2CAP/ACLLayer.swift",  // the reassembler, per ACL packet
        "Sources/BTLensDissect/RecordChecks.swift",  // the last record read
    ]

    func testSpeedTricksStayInTheirFiles() throws {
        let trick = try NSRegularExpression(pattern: #"@exclusivity\(unchecked\)|\bUnmanaged\b|@unchecked Sendable"#)
        var found: Set<String> = []
        for file in try Self.swiftFiles(under: ["Sources"]) {
            for (_, text) in Self.codeLines(file.text)
            where trick.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                found.insert(file.path)
            }
        }
        // Exactly these: a file that no longer needs its trick leaves the list too.
        XCTAssertEqual(found.sorted(), Self.trickFiles.sorted())
    }

    func testSingleOwnerCellsStayInTheirFiles() throws {
        var found: Set<String> = []
        for file in try Self.swiftFiles(under: ["Sources"])
        where file.path != "Sources/BTLensCore/SingleOwnerCell.swift" {
            for (_, text) in Self.codeLines(file.text) where text.contains("SingleOwnerCell") {
                found.insert(file.path)
            }
        }
        XCTAssertEqual(found.sorted(), Self.cellFiles.sorted())
    }
}
