import BTLensCore
import BTLensDefinitions
import BTLensDissect
import Foundation

/// A definition file and messages decoded with it (issue 47): the loader must refuse, at load, what
/// would take unbounded work, and a definition it loads must decode any payload in bounded time.
enum DefinitionTargets {
    static var all: [FuzzTarget] {
        [
            FuzzTarget(
                name: "definition-use",
                summary:
                    "a definition (YAML), a 00 byte, then parts: each a message (tag: command, low bit the direction)",
                seeds: { seeds() },
                run: { bytes in run(bytes) })
        ]
    }

    static func run(_ bytes: [UInt8]) {
        let cut = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let text = String(decoding: bytes[..<cut], as: UTF8.self)
        guard let d = try? DefinitionLoader.load(text: text, file: "fuzz.yaml") else { return }
        _ = WiresharkExport.lua([d], version: "fuzz")
        for part in Parts(Array(bytes[cut...].dropFirst())) {
            let direction: Direction = part.tag & 1 == 0 ? .sent : .received
            for wantsFields in [true, false] {
                _ = d.decode(
                    Message(
                        command: UInt16(part.tag >> 1), flags: nil, payload: part.body, direction: direction,
                        characteristic: nil, wantsFields: wantsFields))
            }
        }
    }

    /// The shipped definitions, the examples' and the YAML of the docs, each with a few messages.
    static func seeds() -> [[UInt8]] {
        let root = (FuzzTarget.dissectorsFolder as NSString).deletingLastPathComponent
        let folders = [FuzzTarget.dissectorsFolder, FuzzTarget.dissectorsFolder + "/examples"]
        var texts = folders.flatMap { folder in
            ((try? DefinitionLoader.files(in: folder)) ?? []).compactMap { FileManager.default.contents(atPath: $0) }
        }
        for doc in ["Dissectors/README.md", "docs/dissectors.md", "docs/wireshark-export.md"] {
            guard let md = FileManager.default.contents(atPath: root + "/" + doc) else { continue }
            texts += yamlBlocks(String(decoding: md, as: UTF8.self)).map { Data($0.utf8) }
        }
        let messages = Parts.encode([(0x20 << 1, [1]), (0x10 << 1 | 1, [1, 2, 3, 4, 5, 6, 7]), (0x40, [0x10, 0, 9])])
        return texts.map { [UInt8]($0) + [0] + messages }
    }

    /// The fenced ```yaml blocks of a Markdown page.
    static func yamlBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```yaml") {
                current = []
            } else if let lines = current, line.hasPrefix("```") {
                blocks.append(lines.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
