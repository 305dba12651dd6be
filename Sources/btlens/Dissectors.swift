import ArgumentParser
import BTLensDefinitions
import BTLensDissect
import BTLensReport
import Foundation

struct Dissectors: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dissectors",
        abstract: "Check and list dissectors: vendor protocols in definition files (Dissectors/*.yaml) and built in.",
        discussion:
            "Definitions are read from ~/.config/btlens/dissectors (yours) and ./Dissectors, or from the folders given with --dissectors; a file of ./Dissectors that binds what one of yours binds is left out with a note. The format is described in Dissectors/README.md.",
        subcommands: [Check.self, List.self, Export.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract:
                "Validate definition files and replay their examples; exit 1 if any has an error, or none is found.",
            discussion:
                "Each error is printed as FILE:LINE: what was expected and what was found, every error of every file in one run. Bindings are checked against each other and against the built-in dissectors."
        )

        @Argument(help: "Folders or files to check (default: ~/.config/btlens/dissectors and ./Dissectors).")
        var paths: [String] = []

        @Option(
            name: .customLong("dissectors"),
            help: ArgumentHelp(
                "A folder or file to check, as the other commands take it. Repeatable.", valueName: "dir"))
        var dissectorPaths: [String] = []

        func run() throws {
            let paths = paths + dissectorPaths
            let loaded =
                paths.isEmpty
                ? DefinitionLoader.load(DefinitionLoader.defaultFolders())
                : DefinitionLoader.load(paths, required: true)
            for case let d as DefinitionDissector in loaded.table.dissectors {
                let failed = loaded.warnings.filter { $0.file == d.origin }.count
                let bindings = d.bindings.count
                print(
                    TerminalText.safe(
                        "\(d.origin): \(d.name): \(d.messageCount) messages, \(bindings) binding\(bindings == 1 ? "" : "s"), "
                            + "\(d.examples.count - failed) of \(d.examples.count) examples hold"))
            }
            // Every error of every file, in file order, then the examples that do not hold.
            let errors = loaded.errors + loaded.warnings
            // Definition files are the user's input: their control characters are shown escaped.
            for e in errors { print(TerminalText.safe("\(e)")) }
            for n in loaded.leftOut { print(TerminalText.safe("note: \(n)")) }
            if loaded.files.isEmpty && errors.isEmpty {
                // Nothing checked is not a pass: say where btlens looked.
                let places = paths.isEmpty ? loaded.table.sources.folders.map(\.path) : paths
                print("no definition files found (looked in \(places.joined(separator: ", ")))")
                throw ExitCode(1)
            }
            if !errors.isEmpty { throw ExitCode(1) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the dissectors loaded and where each binds.")

        @OptionGroup var definitions: DefinitionOptions

        func run() throws {
            let table = try definitions.load().table
            for d in table.dissectors {
                let title = (d as? DefinitionDissector)?.title.map { "  \($0)" } ?? ""
                print(TerminalText.safe("\(d.name)  [\(d.origin)]\(title)"))
                print("    framing: \(Self.summary(d.framing))")
                if let p = d.pairing {
                    print("    pairs responses (\(p.match.rawValue), timeout \(p.timeoutMicroseconds / 1000) ms)")
                }
            }
            print("")
            for (b, d) in table.bindings {
                let role = b.role == .value ? "" : " (\(b.role.rawValue))"
                let framing = b.framing.map { ", \(Self.summary($0))" } ?? ""
                let devices = b.devices.map { " on devices \($0)" } ?? ""
                print(
                    TerminalText.safe(
                        "  \(b.key)\(role)\(framing)\(devices) → \(d.name)\(b.overrides ? " (overrides the built-in there)" : "")"
                    ))
            }
        }

        /// `a5 (magic 0xa5, version, command, …)`, `whole value`, `event byte + payload`.
        static func summary(_ framing: Framing) -> String {
            switch framing {
            case .frames(let f): return f == .a5 ? "a5 (\(f.summary))" : f.summary
            case .values(let commandByte, let checksum):
                return (commandByte ? "event byte + payload" : "whole value")
                    + (checksum.map { " + \($0.algorithm.summary) last" } ?? "")
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the definitions as one Wireshark Lua plugin (tshark -X lua_script:FILE.lua).",
            discussion:
                "A protocol per definition (filter name: the protocol with - as _), bound to its characteristics, RFCOMM services and EA protocols, with btlens' framing, pairing and diagnostics as expert infos. Streams whose discovery is not in the capture: Decode As (-d btatt.handle==0x0013,aurora_headphones). A definition with an error is refused, as everywhere."
        )

        /// What to export to; a flag without a default, so the usage line shows it as required.
        enum Target: EnumerableFlag {
            case wireshark

            static func help(for value: Target) -> ArgumentHelp? {
                "Write a Wireshark Lua plugin (the only export so far)."
            }
        }

        @Flag var target: Target

        @Argument(help: "Folders or files of definitions (default: ~/.config/btlens/dissectors and ./Dissectors).")
        var paths: [String] = []

        @Option(
            name: .customLong("dissectors"),
            help: ArgumentHelp(
                "A folder or file of definitions, as the other commands take it. Repeatable.", valueName: "dir"))
        var dissectorPaths: [String] = []

        @Option(name: .shortAndLong, help: ArgumentHelp("The Lua file to write; - for stdout.", valueName: "file"))
        var output: String

        func run() throws {
            let paths = paths + dissectorPaths
            let loaded = try DefinitionOptions.load(paths)
            let definitions = loaded.table.dissectors.compactMap { $0 as? DefinitionDissector }
            guard !definitions.isEmpty else {
                let places = paths.isEmpty ? loaded.table.sources.folders.map(\.path) : paths
                throw InputFailure(message: "no definitions to export (looked in \(places.joined(separator: ", ")))")
            }
            let lua = WiresharkExport.lua(definitions, version: Btlens.version)
            if output == "-" {
                print(lua, terminator: "")
                return
            }
            _ = try ReportCommand.write(lua, to: output)
            let names = definitions.map { WiresharkExport.filterName($0.name) }
            FileHandleStderr.write(
                "wrote \(output): \(names.count) protocol\(names.count == 1 ? "" : "s") (\(names.joined(separator: ", ")))\n"
            )
        }
    }
}
