import BTLensCore
import BTLensDissect

/// How decoded messages look: `name=value` in text (`MessageValue.description`), an object in JSON.
enum MessageFormat {
    /// `preset=bassBoost level=85%`, with control characters from the capture escaped.
    static func text(_ fields: [MessageField]) -> String { TerminalText.safe(MessageField.describe(fields)) }

    static func json(_ w: inout JSONWriter, _ fields: [MessageField]) {
        w.beginObject()
        w.put(fields: fields)
        w.endObject()
    }

    static func json(_ w: inout JSONWriter, _ v: MessageValue) { w.put(v) }
}
