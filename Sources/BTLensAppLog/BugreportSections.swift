/// The logcat inside an Android bugreport's text: the lines of its `SYSTEM LOG` sections, which
/// dumpstate writes between `------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------`
/// and the next section's header or `------ 0.123s was the duration of 'SYSTEM LOG' ------`. That
/// log holds the main, system and crash buffers, where an app's `Log.d` lines go. Not read: `EVENT
/// LOG` (binary events as text), `RADIO LOG` (the modem), `LAST LOGCAT` (the boot before),
/// `SYSTEM LOG AFTER DONE` (lines the first section already holds, again).
struct BugreportSections {
    /// Whether the last line looked at is inside a section.
    private(set) var inside = false
    /// How many sections began.
    private(set) var sections = 0

    static let header = Array("------ SYSTEM LOG (logcat".utf8)
    static let sectionStart = Array("------ ".utf8)

    /// Whether `line` is a line of a logcat section (a section's own header and end are not).
    mutating func admits(_ line: [UInt8]) -> Bool {
        if line.starts(with: Self.sectionStart) {
            inside = line.starts(with: Self.header)
            if inside { sections += 1 }
            return false
        }
        return inside
    }
}
