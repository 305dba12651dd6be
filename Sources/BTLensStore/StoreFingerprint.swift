import BTLensDissect
import Crypto
import Foundation

/// What made a capture's rows, besides its bytes: btlens' version, the definition files loaded
/// (their bytes) and the options that change decoding. A change of any indexes the capture again.
public enum StoreFingerprint {
    public static func make(version: String, sources: DefinitionSources, options: [String]) -> String {
        var hash = SHA256()
        for folder in sources.folders where folder.exists {
            for name in folder.files {
                hash.update(data: Data((folder.absolute + "/" + name + "\n").utf8))
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: folder.absolute + "/" + name))) ?? Data()
                hash.update(data: bytes)
            }
        }
        for o in options { hash.update(data: Data((o + "\n").utf8)) }
        let digest = hash.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
        return "btlens \(version), definitions and options \(digest)"
    }
}
