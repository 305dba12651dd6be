import Foundation
import XCTest

/// Rules of the code that a reviewer would otherwise have to remember, checked over every Swift
/// file of Sources and Tests.
final class SourceRulesTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
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
}
