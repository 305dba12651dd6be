import ArgumentParser
import BTLensDefinitions
import BTLensDissect
#if canImport(Glibc)
import Glibc
#endif

struct Dissectors: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dissectors",
        abstract: "Check and list dissectors: vendor protocols in definition files (Dissectors/*.yaml) and built in.",
        discussion: "Definitions are read from ./Dissectors and ~/.config/btlens/dissectors, or from the folders given with --dissectors. The format is described in Dissectors/README.md.",
        subcommands: [Check.self, List.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate definition files and replay their examples; exit 1 if any has an error.",
            discussion: "Each error is printed as FILE:LINE: what was expected and what was found. Bindings are checked against each other and against the built-in dissectors.")

        @Argument(help: "Folders or files to check (default: ./Dissectors and ~/.config/btlens/dissectors).")
        var paths: [String] = []

        func run() throws {
            let loaded = paths.isEmpty ? DefinitionLoader.load(DefinitionLoader.defaultDirectories(), required: false)
                                       : DefinitionLoader.load(paths, required: true)
            var errors = loaded.errors
            for case let d as DefinitionDissector in loaded.table.dissectors {
                let failed = ExampleReplay.check(d)
                errors += failed
                let bindings = d.bindings.count
                print("\(d.origin): \(d.name): \(d.messageCount) messages, \(bindings) binding\(bindings == 1 ? "" : "s"), "
                      + "\(d.examples.count - failed.count) of \(d.examples.count) examples hold")
            }
            for e in errors { print(e) }
            if loaded.files.isEmpty && errors.isEmpty { print("no definition files found") }
            if !errors.isEmpty { throw ExitCode(1) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the dissectors loaded and where each binds.")

        @OptionGroup var definitions: DefinitionOptions

        func run() throws {
            let table = try definitions.load().table
            for d in table.dissectors {
                let framing: String
                switch d.framing {
                case .frames(let f): framing = "\(f.name) frames"
                case .values(let commandByte): framing = commandByte ? "one value per message, event byte first" : "one value per message"
                }
                let pairing = d.pairing.map { ", pairs responses (\($0.match.rawValue), timeout \($0.timeoutMicroseconds / 1000) ms)" } ?? ""
                print("\(d.name)  [\(d.origin)]  \(framing)\(pairing)")
            }
            print("")
            for (b, d) in table.bindings {
                let role = b.role == .value ? "" : " (\(b.role.rawValue))"
                let framing: String
                switch b.framing {
                case .frames(let f)?: framing = ", \(f.name) frames"
                case .values(let commandByte)?: framing = commandByte ? ", event byte + payload" : ", whole value"
                case nil: framing = ""
                }
                print("  \(b.key)\(role)\(framing) → \(d.name)\(b.overrides ? " (overrides the built-in)" : "")")
            }
        }
    }
}
