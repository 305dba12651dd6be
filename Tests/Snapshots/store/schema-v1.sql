sql
"CREATE TABLE app_logs (capture INTEGER, source TEXT, method TEXT, offset_ms REAL, matched INTEGER, untimed INTEGER)"
CREATE INDEX app_logs_by_capture ON app_logs (capture)
"CREATE TABLE captures (id INTEGER PRIMARY KEY, path TEXT, size INTEGER, modified_ns INTEGER, sha256 TEXT, format TEXT, link_type INTEGER, records INTEGER, first_time TEXT, last_time TEXT, connections INTEGER, frames INTEGER, diagnostics INTEGER, errors INTEGER, undecoded_bytes INTEGER, phone TEXT, os TEXT, controller_firmware TEXT, accessory_name TEXT, accessory_model TEXT, accessory_manufacturer TEXT, accessory_firmware TEXT, app_logs INTEGER, error TEXT, indexed_by TEXT)"
CREATE INDEX captures_by_path ON captures (path)
"CREATE TABLE commands (capture INTEGER, dissector TEXT, command INTEGER, command_name TEXT, sent INTEGER, received INTEGER, answered INTEGER, unanswered INTEGER, latency_min_ms REAL, latency_median_ms REAL, latency_p95_ms REAL, latency_max_ms REAL)"
CREATE INDEX commands_by_capture ON commands (capture)
"CREATE INDEX commands_by_dissector_command ON commands (dissector, command)"
"CREATE TABLE connections (capture INTEGER, controller INTEGER, handle INTEGER, transport TEXT, address TEXT, role TEXT, began_before_capture INTEGER, opened_record INTEGER, opened_time TEXT, closed_record INTEGER, closed_time TEXT, disconnect_reason TEXT, att_mtu INTEGER, att_mtu_default INTEGER, encrypted INTEGER, pairing_method TEXT, subscriptions INTEGER)"
CREATE INDEX connections_by_capture ON connections (capture)
"CREATE TABLE diagnostics (capture INTEGER, id TEXT, severity TEXT, record INTEGER, time TEXT, direction TEXT, message TEXT, connection INTEGER, detected_record INTEGER, verbose_only INTEGER)"
CREATE INDEX diagnostics_by_capture ON diagnostics (capture)
CREATE INDEX diagnostics_by_id ON diagnostics (id)
"CREATE TABLE frames (capture INTEGER, type TEXT, record INTEGER, time TEXT, direction TEXT, connection INTEGER, transport TEXT, att_handle INTEGER, uuid TEXT, ea_session INTEGER, rfcomm_channel INTEGER, cid INTEGER, framing TEXT, command INTEGER, sequence INTEGER, checksum_ok INTEGER, dissector TEXT, command_name TEXT, kind TEXT, response_to INTEGER, latency_ms REAL, payload_length INTEGER)"
"CREATE INDEX frames_by_capture_record ON frames (capture, record)"
"CREATE INDEX frames_by_dissector_command ON frames (dissector, command)"
CREATE TABLE pending (capture INTEGER PRIMARY KEY)
"CREATE TABLE subscriptions (capture INTEGER, connection INTEGER, record INTEGER, time TEXT, att_handle INTEGER, uuid TEXT, kind TEXT)"
CREATE INDEX subscriptions_by_capture ON subscriptions (capture)
