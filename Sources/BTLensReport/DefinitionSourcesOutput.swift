import BTLensCore
import BTLensDissect
import Foundation

extension JSONWriter {
    /// `definitions`: each folder searched (as named, absolute, why, whether it exists, the files
    /// read from it), the notes (files left out, examples that do not hold), and `--no-dissectors`.
    mutating func definitions(_ s: DefinitionSources) {
        beginObject()
        field("disabled", s.disabled)
        key("folders")
        beginArray()
        for f in s.folders {
            beginObject()
            field("path", f.path)
            field("absolute", f.absolute)
            field("role", f.role)
            field("exists", f.exists)
            key("files")
            beginArray()
            for name in f.files { string(name) }
            endArray()
            endObject()
        }
        endArray()
        key("notes")
        beginArray()
        for n in s.notes { string(n) }
        endArray()
        endObject()
    }
}

extension DefinitionSources {
    /// For a report to be shared: the files and why each folder was read, not where it is on this machine.
    public var redacted: DefinitionSources {
        var s = self
        for (i, f) in folders.enumerated() {
            // A relative "." or "x" would match inside file names: only paths with a folder in them are replaced.
            for place in [f.absolute, f.path] where place.contains("/") {
                s.notes = s.notes.map { $0.replacingOccurrences(of: place, with: "(\(f.role))") }
            }
            (s.folders[i].path, s.folders[i].absolute) = ("", "")
        }
        return s
    }
}
