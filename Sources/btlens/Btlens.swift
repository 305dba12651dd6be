import ArgumentParser
import BTLensCapture
import BTLensCore
import Foundation

struct Btlens: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "btlens",
        abstract: "Annotated timelines of what a phone app and its Bluetooth accessory said to each other.",
        discussion: """
            Reads Bluetooth HCI captures (btsnoop, PacketLogger, pcap/pcapng, Android btsnooz; see `btlens formats`) and decodes HCI → ACL → L2CAP → ATT/GATT or RFCOMM → iAP2 → A5 frames, with diagnostics for what does not add up. Vendor commands are named by dissectors: definition files in ./Dissectors or ~/.config/btlens/dissectors (see `btlens dissectors`). The format is recognised by content, never by file name. `btlens FILE` is `btlens timeline FILE`.

            EXIT STATUS
              0  the input was read as a capture (diagnostics may have been reported)
              1  the input could not be read as a capture (not a capture, unreadable,
                 unsupported); for a folder, one of its captures could not; the
                 output could not be written (a full disk)
              2  usage error, unknown subcommand, or a definition that does not load
              3  --fail-on SEVERITY was given and a diagnostic that bad or worse was
                 found (among those --filter selects)
            """,
        version: "\(version) (libpcap: \(Libpcap.version))",
        subcommands: [
            Timeline.self, Follow.self, View.self, Stats.self, Diff.self, ReportCommand.self, Convert.self,
            Interfaces.self, Index.self, Query.self, Export.self,
            Dissectors.self,
            Formats.self, DiagnosticsList.self, FiltersHelp.self,
        ],
        defaultSubcommand: Timeline.self)
}

extension Btlens {
    /// btlens' own version, without the libraries'.
    static let version = "0.1.0"

    /// A usage error `command` found as it ran, with its usage as ArgumentParser shows a parsing error's.
    static func usageError(_ message: String, of command: any ParsableCommand.Type) -> String {
        let usage = usageString(for: command).split(separator: "\n").joined(separator: "\n       ")
        let name = path(to: command)?.joined(separator: " ") ?? "btlens"
        return "Error: \(message)\nUsage: \(usage)\n  See '\(name) --help' for more information."
    }

    /// The names from `root` down to `command` (`btlens dissectors export`), or nil when it is not below.
    private static func path(
        to command: any ParsableCommand.Type, from root: any ParsableCommand.Type = Btlens.self
    ) -> [String]? {
        if ObjectIdentifier(command) == ObjectIdentifier(root) { return [root._commandName] }
        for sub in root.configuration.subcommands {
            if let below = path(to: command, from: sub) { return [root._commandName] + below }
        }
        return nil
    }

    /// `btlens stat FILE`: the first word is neither a subcommand nor a file, so it is not the
    /// `btlens FILE` shorthand; said as an unknown subcommand, with the nearest one.
    static func unknownSubcommand(_ arguments: [String]) -> String? {
        let names = configuration.subcommands.map { $0.configuration.commandName ?? "" }
        // `btlens help NOPE` would show the overview and succeed.
        if arguments.first == "help", let topic = arguments.dropFirst().first, !names.contains(topic) {
            return "help: no subcommand '\(topic)' (subcommands: \(names.joined(separator: ", ")))"
        }
        guard let word = arguments.first, !word.hasPrefix("-"), word != "help" else { return nil }
        guard !names.contains(word), !FileManager.default.fileExists(atPath: word) else { return nil }
        let near = names.filter { EditDistance.levenshtein($0, word) <= 2 || (word.count >= 3 && $0.hasPrefix(word)) }
        // A lone word that looks like nothing is left to the shorthand, which says the file is missing.
        guard !near.isEmpty || (arguments.count > 1 && !word.contains("/") && !word.contains(".")) else { return nil }
        return "unknown subcommand '\(word)'"
            + (near.isEmpty ? "" : "; did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?")
            + " (no file '\(word)' either; subcommands: \(names.joined(separator: ", ")))"
    }
}
