import Foundation

/// The folder of Package.swift, found from this file's place in it: tests read Captures/, docs/
/// and Dissectors/ from there, and ../shared beside it, wherever their own file sits.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
