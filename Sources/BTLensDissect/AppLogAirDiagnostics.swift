import BTLensCore

/// Where an app's log and the air disagree (`--app-log`): declared beside the app log events, raised
/// by BTLensAppLog's `AppLogAirMatcher`, read by the report.
public enum AppLogAirDiagnostics {
    public static let txNotOnAir = DiagnosticKind(
        "app.tx.not_on_air", .warning,
        "A log line shows bytes the app sent that no packet carried within the matching window: they never left the phone, or left changed."
    )
    public static let rxNotLogged = DiagnosticKind(
        "app.rx.not_logged", .note,
        "A value the phone received, on a stream whose values the app logs, that no log line shows within the matching window."
    )
    public static let order = DiagnosticKind(
        "app.order", .warning,
        "The log and the air disagree on the order of two commands: the one logged first went out second.")
    public static let outside = DiagnosticKind(
        "app.log.outside", .warning,
        "No line of a log falls within the capture's time on the capture's clock: the log is of another time, or its offset is wrong."
    )
    public static let all = [txNotOnAir, rxNotLogged, order, outside]
}
