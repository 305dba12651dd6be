import ArgumentParser

/// `btlens help filters` (and `btlens filters`): the display filter language.
struct FiltersHelp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "The display filter language of --filter (-Y): grammar, names and examples.",
        discussion: """
            --filter EXPR (-Y EXPR) selects events in timeline (text and jsonl), follow, stats, report and convert. Names are those of `--format jsonl` (docs/jsonl.md): what a JSONL line shows is what a filter reads.

            TESTS
              a5, diagnostic, att, hci.command, iap2.identification, smp, hfp,
              avdtp, avdtp.media, avrcp, log, log.alignment, …
                  an event type; a prefix stands for its family: hci (hci.command,
                  hci.event, hci.debug), gatt, l2cap, iap2, avdtp (avdtp.media too)
              response_to               a field alone: the event has it
              FIELD OP VALUE            OP: == != < <= > >= (or eq ne lt le gt ge)
              FIELD contains VALUE      a substring of a string; bytes in a hex
                                        field (payload, value, bytes): a5:01:20
                                        or a50120
              FIELD matches "REGEX"     a regular expression (PCRE2, as Wireshark;
                                        (?i) for any case), searched in the
                                        string (in the hex of bytes)
              FIELD in {V1, V2, A..B}   one of the values, or within a range (both
                                        ends included); FIELD in A..B alone too
              !T, not T    T && U, T and U    T || U, T or U    ( T )
                  not binds tighter than and, and tighter than or

            FIELDS
              The JSONL keys, nested with dots: record, time, reltime, direction,
              connection, command, sequence, flags, payload, checksum_ok,
              att_handle, uuid, transport, dissector, command_name, kind,
              fields.preset, flags_names, response_to, latency_ms, id, severity,
              message, opcode, name, code, handle, reason, status, services.name,
              protocols.name, value, bytes, …; under fields. any name a
              definition gives its fields.
              A comparison on a field the event lacks is false, != too (as in
              Wireshark): `command == 0x20` selects what `a5 && command == 0x20`
              does, and the diagnostics about command 0x20. On an array
              (flags_names, services.classes) a test holds when one element
              passes, and != when none is equal.

            VALUES
              Numbers 32, 0x20, -1, 1.25; strings in quotes "SetEQPreset"; bare
              words too (fields.preset == bassBoost, id == a5.checksum.bad,
              dissector == aurora-headphones); bytes a5:01:20 or a50120; true,
              false. Strings take Wireshark's escapes (\\\\ \\" \\n \\t \\xhh \\ooo
              \\uhhhh …; any other is an error); r"…" keeps backslashes:
              message matches r"\\d+". severity is ordered note < warning <
              error; direction is sent or received. time takes ISO 8601 text
              in UTC (2023-11-14T22:13:20.5Z; the seconds and fraction may be
              left out) or, in quotes, with an offset
              ("2023-11-14T23:13:20.5+01:00");
              reltime is seconds since the traffic's first event, not a note
              before it (the text timeline's second column).

            EXAMPLES
              -Y 'a5 && command == 0x20'                one command, both ways
              -Y 'command_name == SetEQPreset || response_to'
                                                        a command by name, and
                                                        every response
              -Y 'severity >= warning'                  what went wrong
              -Y 'connection == 0x40 && record in 800..900'
                                                        one connection, records
                                                        800 to 900
              -Y 'payload contains 12:34:56'            frames holding these bytes
              -Y 'iap2.identification && serial contains "X7"'
                                                        an accessory's serial
              -Y 'latency_ms > 100'                     slow responses
              -Y 'id matches "^a5\\\\.(checksum|sequence)"'
                                                        checksum and sequence
                                                        problems
              -Y 'att && uuid == fff3 && direction == sent'
                                                        writes to one
                                                        characteristic
              -Y 'fields.preset == bassBoost'           a decoded field's value
              -Y 'avdtp && stream_state == streaming'   when A2DP started
              -Y 'hfp && codec'                         HFP codec negotiation
              -Y 'avrcp && event == VolumeChanged'      volume notifications
              -Y 'a5 && psm == 0x80'                    frames on a credit-based
                                                        channel
              -Y 'log && matches_record'                app log lines whose bytes
                                                        went over the air
              -Y 'reltime >= 12.5 && reltime < 13'      half a second of capture
              -Y '!hci && !connection'                  everything above HCI

            ERRORS
              A filter that does not compile exits 2 before any capture is read,
              with the expression and a caret under the place:
                unknown field "comand" (did you mean "command"?)
            """)

    func run() throws {
        print(FiltersHelp.helpMessage())
    }
}
