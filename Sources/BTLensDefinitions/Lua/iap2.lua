-- iAP2 (Apple's accessory protocol) on Bluetooth RFCOMM, as btlens decodes it: the detect bytes,
-- link packets (SYN parameters, ACK, EAK, RST, SLP, session data), control-session messages,
-- IdentificationInformation, External Accessory (EA) sessions, retransmitted and duplicated packets.
--
-- Bound to RFCOMM channels whose SDP record lists an iAP2 service class (a guess, as in btlens: the
-- channel's first iAP2 item confirms it or withdraws it), and by "Decode As" to an RFCOMM DLCI
-- (no guess). The byte stream is reassembled per ACL handle, DLCI and direction when a frame is
-- first dissected; what each frame shows is kept by frame number, so later passes and clicks in any
-- order show the same.
--
-- EA session data, each byte once (a retransmitted or duplicated packet's data is not handed on
-- again), goes as a new Tvb to the dissector registered in the "iap2.ea_protocol" table under its
-- EA protocol string, else to the one registered under "" if any. Before each call,
-- pinfo.private.btlens_stream names the stream (connection, EA session, direction),
-- pinfo.private.btlens_scope the EA session (where requests and responses pair, as in btlens) and
-- pinfo.private.btlens_part is the payload's 1-based index among those handed on in this frame;
-- the EA dissector is called on every pass and keys what it keeps by frame number and part.
--
-- message_names, session_types, ft_types, experts and GUESS_LIMIT are btlens' declarations, which
-- the export writes just before this file.

local iap2 = Proto("iap2", "iAP2")

local f_chandle = Field.new("bthci_acl.chandle")
local f_dlci = Field.new("btrfcomm.dlci")
local f_evt_code = Field.new("bthci_evt.code")
local f_evt_status = Field.new("bthci_evt.status")
local f_evt_handle = Field.new("bthci_evt.connection_handle")

local match_actions = { [0] = "no action", [1] = "optional prompt", [2] = "no prompt, Find App",
  [3] = "no protocol" }
local ea_statuses = { [0] = "OK", [1] = "close" }

local pf = {}
local function field(key, f) pf[key] = f end
field("detect", ProtoField.bytes("iap2.detect", "Detect (iAP2 supported)"))
field("iap1", ProtoField.bytes("iap2.iap1", "iAP1 frame"))
field("start", ProtoField.uint16("iap2.start", "Start of packet", base.HEX))
field("length", ProtoField.uint16("iap2.length", "Packet length"))
field("control", ProtoField.uint8("iap2.control", "Control", base.HEX))
field("syn", ProtoField.bool("iap2.control.syn", "SYN", 8, nil, 0x80))
field("ack", ProtoField.bool("iap2.control.ack", "ACK", 8, nil, 0x40))
field("eak", ProtoField.bool("iap2.control.eak", "EAK", 8, nil, 0x20))
field("rst", ProtoField.bool("iap2.control.rst", "RST", 8, nil, 0x10))
field("sus", ProtoField.bool("iap2.control.sus", "SUS (SLP)", 8, nil, 0x08))
field("psn", ProtoField.uint8("iap2.psn", "PSN"))
field("pan", ProtoField.uint8("iap2.pan", "PAN"))
field("session", ProtoField.uint8("iap2.session", "Session id"))
field("header_checksum", ProtoField.uint8("iap2.header_checksum", "Header checksum", base.HEX))
field("payload", ProtoField.bytes("iap2.payload", "Payload"))
field("payload_checksum", ProtoField.uint8("iap2.payload_checksum", "Payload checksum", base.HEX))
field("kind", ProtoField.string("iap2.kind", "Kind"))
field("session_type", ProtoField.string("iap2.session_type", "Session type"))
field("detail", ProtoField.string("iap2.detail", "Detail"))
field("fragment", ProtoField.framenum("iap2.fragment", "Part of this packet in frame"))
field("fragment_count", ProtoField.uint16("iap2.fragment_count", "Frames this packet came in"))
field("earlier", ProtoField.framenum("iap2.retransmission_of", "Earlier copy in frame"))
field("syn_version", ProtoField.uint8("iap2.syn.version", "Link version"))
field("syn_outstanding", ProtoField.uint8("iap2.syn.max_outstanding", "Max outstanding packets"))
field("syn_max_length", ProtoField.uint16("iap2.syn.max_packet_length", "Max received packet length"))
field("syn_rto", ProtoField.uint16("iap2.syn.retransmission_timeout", "Retransmission timeout (ms)"))
field("syn_ack_timeout", ProtoField.uint16("iap2.syn.cumulative_ack_timeout", "Cumulative ACK timeout (ms)"))
field("syn_retries", ProtoField.uint8("iap2.syn.max_retransmissions", "Max retransmissions"))
field("syn_acks", ProtoField.uint8("iap2.syn.max_cumulative_acks", "Max cumulative ACKs"))
field("syn_session", ProtoField.none("iap2.syn.session", "Session"))
field("syn_session_id", ProtoField.uint8("iap2.syn.session_id", "Session id"))
field("syn_session_type", ProtoField.uint8("iap2.syn.session_type", "Session type", base.DEC, session_types))
field("syn_session_version", ProtoField.uint8("iap2.syn.session_version", "Session version"))
field("eak_psn", ProtoField.uint8("iap2.eak.psn", "Out-of-sequence PSN (Apple semantics)"))
field("msg", ProtoField.none("iap2.msg", "Control message"))
field("msg_start", ProtoField.uint16("iap2.msg.start", "Start of message", base.HEX))
field("msg_length", ProtoField.uint16("iap2.msg.length", "Message length"))
field("msg_id", ProtoField.uint16("iap2.msg.id", "Message id", base.HEX, message_names))
field("msg_name", ProtoField.string("iap2.msg.name", "Message name"))
field("param", ProtoField.none("iap2.param", "Parameter"))
field("param_length", ProtoField.uint16("iap2.param.length", "Parameter length"))
field("param_id", ProtoField.uint16("iap2.param.id", "Parameter id"))
field("param_value", ProtoField.bytes("iap2.param.value", "Value"))
field("param_string", ProtoField.string("iap2.param.string", "String"))
field("param_uint", ProtoField.uint32("iap2.param.uint", "Number"))
field("param_message", ProtoField.uint16("iap2.param.message", "Message", base.HEX, message_names))
field("ident_name", ProtoField.string("iap2.ident.name", "Name"))
field("ident_model", ProtoField.string("iap2.ident.model", "Model"))
field("ident_manufacturer", ProtoField.string("iap2.ident.manufacturer", "Manufacturer"))
field("ident_serial", ProtoField.string("iap2.ident.serial", "Serial number"))
field("ident_firmware", ProtoField.string("iap2.ident.firmware", "Firmware version"))
field("ident_hardware", ProtoField.string("iap2.ident.hardware", "Hardware version"))
field("ident_ea", ProtoField.none("iap2.ident.ea_protocol", "External Accessory protocol"))
field("ident_ea_id", ProtoField.uint8("iap2.ident.ea_protocol_id", "Protocol id"))
field("ident_ea_name", ProtoField.string("iap2.ident.ea_protocol_name", "Protocol string"))
field("ident_ea_match", ProtoField.uint8("iap2.ident.ea_match_action", "Match action", base.DEC, match_actions))
field("accessory", ProtoField.string("iap2.accessory", "Accessory"))
field("ea_protocol_id", ProtoField.uint8("iap2.ea.protocol_id", "EA protocol id"))
field("ea_session_id", ProtoField.uint16("iap2.ea.session_id", "EA session id"))
field("ea_protocol", ProtoField.string("iap2.ea.protocol", "EA protocol"))
field("ea_status", ProtoField.uint8("iap2.ea.status", "EA session status", base.DEC, ea_statuses))
field("ea_data", ProtoField.bytes("iap2.ea.data", "EA session data"))
field("ea_handed", ProtoField.bool("iap2.ea.handed_on", "Handed on (not a repeat)"))
field("ft_id", ProtoField.uint8("iap2.ft.id", "File transfer id"))
field("ft_control", ProtoField.uint8("iap2.ft.control", "File transfer control", base.HEX))
field("ft_first", ProtoField.bool("iap2.ft.first", "First", 8, nil, 0x80))
field("ft_last", ProtoField.bool("iap2.ft.last", "Last", 8, nil, 0x40))
field("ft_type", ProtoField.uint8("iap2.ft.type", "Type", base.DEC, ft_types, 0x0f))
field("ft_size", ProtoField.uint64("iap2.ft.size", "Total size"))
field("ft_data", ProtoField.bytes("iap2.ft.data", "Data"))
field("ft_detail", ProtoField.string("iap2.ft.detail", "File transfer"))
do
  local all = {}
  for _, f in pairs(pf) do all[#all + 1] = f end
  iap2.fields = all
end

-- Expert ids are btlens' diagnostic ids (docs/jsonl.md), with the same meaning; each text
-- starts with its id, as btlens' text timeline does.
local ids = {}
local function expert_info(id, summary, group, severity)
  local e = ProtoExpert.new(id, summary, expert.group[group], expert.severity[severity])
  ids[e] = id
  return e
end
-- The dissector's own failure is no btlens diagnostic; the others are btlens' (experts, above).
local ex = { lua = expert_info("iap2.dissector_error", "The iAP2 dissector failed here", "MALFORMED", "ERROR") }
for name, e in pairs(experts) do ex[name] = expert_info(e[1], e[2], e[3], e[4]) end
do
  local all = {}
  for _, e in pairs(ex) do all[#all + 1] = e end
  iap2.experts = all
end

local ea_table = DissectorTable.new("iap2.ea_protocol", "iAP2 External Accessory protocol", ftypes.STRING)
local dlci_table = DissectorTable.get("btrfcomm.dlci")

local DETECT = "\255\085\002\000\238\016"
local RECENT_LIMIT = 128     -- packets remembered per direction (docs/limits.md)

-- Links by "handle#generation/dlci"; what each frame shows, by frame number; what the end of a
-- connection says, by frame number; per ACL handle, how many connections on it have ended; the
-- last frame each of the two dissectors worked out.
local links, results, ended, generation, upto

local function reset()
  links, results, ended, generation, upto = {}, {}, {}, {}, { data = 0, ends = 0 }
end
reset()
iap2.init = reset

-- A frame is worked out once: on the first pass, or, when that pass did not reach it (tshark -2
-- builds no tree on its first pass, and RFCOMM then hands nothing on), on a later pass in order.
local function fresh(pinfo, which)
  return not pinfo.visited or pinfo.number > upto[which]
end

local function u16(s, i) return s:byte(i) * 256 + s:byte(i + 1) end

-- The two's complement of the byte sum: what makes the covered bytes sum to 0 mod 256.
local function checksum(s, i, j)
  local sum = 0
  for k = i, j do sum = sum + s:byte(k) end
  return (256 - sum % 256) % 256
end

local function hex2(v) return string.format("0x%02x", v) end

local function direction_name(d)
  return d == 0 and "sent" or d == 1 and "received" or "unknown"
end

-- Framer (btlens' IAP2Framer): cuts one direction's bytes into detect bytes, iAP1 frames and link
-- packets. It holds at most one packet (65,535 bytes) plus the last frame's bytes; `pieces` are
-- the frames the held bytes came from, `abs` the stream offset of buf's first byte.
local function new_framer()
  return { buf = "", pos = 1, abs = 0, pieces = {}, skipped = 0 }
end

local function append(f, data, frame)
  if f.pos > 1 then
    f.abs = f.abs + f.pos - 1
    f.buf = f.buf:sub(f.pos)
    f.pos = 1
  end
  f.pieces[#f.pieces + 1] = { frame = frame, start = f.abs + #f.buf, len = #data }
  f.buf = f.buf .. data
end

local function avail(f) return #f.buf - f.pos + 1 end
local function at(f, k) return f.buf:byte(f.pos + k) end

local function consume(f, n)
  f.pos = f.pos + n
  local first = f.abs + f.pos - 1
  while #f.pieces > 0 and f.pieces[1].start + f.pieces[1].len <= first do table.remove(f.pieces, 1) end
end

-- The next `n` bytes as an item: where they are in the frame that completes them (`offset`), or,
-- when they came in several frames, their bytes and those frames.
local function take(f, kind, n)
  local start = f.abs + f.pos - 1
  local last = f.pieces[#f.pieces]
  local item = { kind = kind, len = n }
  if last.start <= start then
    item.offset = start - last.start
  else
    item.raw = f.buf:sub(f.pos, f.pos + n - 1)
    item.frames = {}
    for _, p in ipairs(f.pieces) do
      if p.start < start + n and p.start + p.len > start then item.frames[#item.frames + 1] = p.frame end
    end
  end
  consume(f, n)
  return item
end

local function flush_skipped(f)
  if f.skipped == 0 then return nil end
  local n = f.skipped
  f.skipped = 0
  return { kind = "skipped", n = n }
end

local function next_item(f)
  while avail(f) > 0 do
    if at(f, 0) ~= 0xff then
      local i = f.buf:find("\255", f.pos, true)
      local junk = i and (i - f.pos) or avail(f)
      f.skipped = f.skipped + junk
      consume(f, junk)
    elseif avail(f) < 2 then
      return nil
    elseif at(f, 1) == 0x55 then
      -- iAP1: FF 55 LEN (lingo, command, data: LEN bytes) checksum.
      if avail(f) < 3 then return nil end
      local total = at(f, 2) + 4
      if avail(f) < total then return nil end
      local s = flush_skipped(f)
      if s then return s end
      local detect = f.buf:sub(f.pos, f.pos + total - 1) == DETECT
      return take(f, detect and "detect" or "iap1", total)
    elseif at(f, 1) ~= 0x5a then
      f.skipped = f.skipped + 1
      consume(f, 1)
    elseif avail(f) < 9 then
      return nil
    elseif checksum(f.buf, f.pos, f.pos + 7) ~= at(f, 8) then
      local s = flush_skipped(f)
      if s then return s end
      consume(f, 1)
      f.skipped = f.skipped + 1
      return { kind = "badheader" }
    else
      local length = at(f, 2) * 256 + at(f, 3)
      if length < 9 then
        f.skipped = f.skipped + 1
        consume(f, 1)
      elseif avail(f) < length then
        return nil
      else
        local s = flush_skipped(f)
        if s then return s end
        return take(f, "packet", length)
      end
    end
  end
  return nil
end

-- A packet begun but not finished: have, need.
local function partial(f)
  local n = avail(f)
  if n <= 0 then return nil end
  if n >= 4 and at(f, 1) == 0x5a then return n, math.max(at(f, 2) * 256 + at(f, 3), 9) end
  return n, (n >= 3 and at(f, 1) == 0x55) and at(f, 2) + 4 or 9
end

-- A link packet's fields, from its bytes.
local function packet_fields(raw)
  local p = { control = raw:byte(5), psn = raw:byte(6), pan = raw:byte(7), session = raw:byte(8), payload = "" }
  if #raw > 9 then
    p.payload = raw:sub(10, #raw - 1)
    p.checksum = raw:byte(#raw)
    p.expected = checksum(raw, 10, #raw - 1)
  end
  return p
end

local function packet_kind(p)
  local c = p.control
  if c == 0x80 then return "SYN" elseif c == 0xc0 then return "SYN+ACK"
  elseif c == 0x40 then return #p.payload == 0 and "ACK" or "DATA"
  elseif c == 0x60 then return "EAK" elseif c == 0x10 then return "RST" elseif c == 0x08 then return "SLP" end
  return "control " .. hex2(c)
end

-- Control message: 40 40, length (whole message), id, then parameters of length (including their
-- 4-byte header), id and data. An error says what btlens says: bytes needed, offset, bytes left.
local function read_params(s, i, stop)
  local list = {}
  local base = i
  while i <= stop do
    if stop - i + 1 < 2 then return nil, { off = i - base, need = 2, have = stop - i + 1 } end
    local len = u16(s, i)
    if stop - i - 1 < 2 then return nil, { off = i + 2 - base, need = 2, have = stop - i - 1 } end
    local id = u16(s, i + 2)
    local n = math.max(len - 4, 0)
    if stop - i - 3 < n then return nil, { off = i + 4 - base, need = n, have = stop - i - 3 } end
    list[#list + 1] = { id = id, at = i, data = s:sub(i + 4, i + 3 + n), data_at = i + 4 }
    i = i + 4 + n
  end
  return list
end

local function parse_control(s)
  if #s < 2 then return nil, { off = 0, need = 2, have = #s } end
  if u16(s, 1) ~= 0x4040 then return nil, { off = 0, need = 2, have = 0 } end
  if #s < 4 then return nil, { off = 2, need = 2, have = #s - 2 } end
  local length = u16(s, 3)
  if #s < 6 then return nil, { off = 4, need = 2, have = #s - 4 } end
  local id = u16(s, 5)
  local n = math.max(length - 6, 0)
  if #s - 6 < n then return nil, { off = 6, need = n, have = #s - 6 } end
  local params, err = read_params(s, 7, 6 + n)
  if not params then return nil, err end
  return { id = id, length = length, params = params }
end

-- Bytes as UTF-8, each ill-formed subsequence replaced by U+FFFD (as Swift's String(decoding:)).
local function valid_utf8(s)
  if not s:find("[\128-\255]") then return s end
  local out, i = {}, 1
  while i <= #s do
    local c = s:byte(i)
    local need, lo, hi = 0, 0x80, 0xbf
    if c < 0x80 then need = -1
    elseif c >= 0xc2 and c <= 0xdf then need = 1
    elseif c >= 0xe0 and c <= 0xef then
      need = 2
      if c == 0xe0 then lo = 0xa0 elseif c == 0xed then hi = 0x9f end
    elseif c >= 0xf0 and c <= 0xf4 then
      need = 3
      if c == 0xf0 then lo = 0x90 elseif c == 0xf4 then hi = 0x8f end
    end
    local j = 1
    while need > 0 and j <= need do
      local b = s:byte(i + j)
      if not b or b < (j == 1 and lo or 0x80) or b > (j == 1 and hi or 0xbf) then break end
      j = j + 1
    end
    if need < 0 or (need > 0 and j > need) then
      out[#out + 1] = s:sub(i, i + math.max(need, 0))
      i = i + math.max(need, 0) + 1
    else
      out[#out + 1] = "\239\191\189"
      i = i + j
    end
  end
  return table.concat(out)
end

-- A utf8 parameter: up to its NUL.
local function utf8z(data)
  local z = data:find("\0", 1, true)
  return valid_utf8(z and data:sub(1, z - 1) or data)
end

-- IdentificationInformation: the accessory as EAAccessory shows it, or nil when a protocol group
-- does not parse (btlens then shows none).
local function identification(m)
  local id = { name = "", model = "", manufacturer = "", serial = "", firmware = "", hardware = "",
    protocols = {} }
  local keys = { [0] = "name", "model", "manufacturer", "serial", "firmware", "hardware" }
  for _, p in ipairs(m.params) do
    if keys[p.id] then
      id[keys[p.id]] = utf8z(p.data)
    elseif p.id == 10 then
      local subs = read_params(p.data, 1, #p.data)
      if not subs then return nil end
      local pid, name = 0, ""
      for _, sp in ipairs(subs) do
        if sp.id == 0 then
          if #sp.data < 1 then return nil end
          pid = sp.data:byte(1)
        elseif sp.id == 1 then
          name = utf8z(sp.data)
        end
      end
      id.protocols[#id.protocols + 1] = { id = pid, name = name }
    end
  end
  return id
end

local function first_param(m, pid)
  for _, p in ipairs(m.params) do if p.id == pid then return p.data end end
  return nil
end

-- Link state (btlens' IAP2Link) -----------------------------------------------------------------

-- Both directions of one RFCOMM channel: a framer each, the session table of the last SYN, PSN
-- tracking per direction, the EA protocols and sessions.
local function new_link(handle, conn, forced)
  return {
    handle = handle, conn = conn, verdict = forced and "confirmed" or nil, held = 0,
    framers = {}, sessions = {}, syn_seen = false, last_psn = {}, recent = {}, recent_count = {},
    rto = 0, protocols = {}, ea_sessions = {}, ea_bound = {},
  }
end

-- What the stream's first item says of a guess that it is iAP2: "confirmed", or what it found.
local function verdict_of(item, raw)
  if item.kind == "detect" then return "confirmed" end
  if item.kind == "iap1" then
    local sum = 0
    for k = 3, #raw do sum = sum + raw:byte(k) end
    return sum % 256 == 0 and "confirmed" or "an iAP1 frame whose checksum fails"
  end
  if item.kind == "packet" then
    local p = packet_fields(raw)
    return p.checksum == p.expected and "confirmed" or "a link packet whose payload checksum fails"
  end
  if item.kind == "skipped" then return "bytes that form no iAP2 packet" end
  return "a link header whose checksum fails"
end

local function diag(item, e, text)
  item.diags = item.diags or {}
  item.diags[#item.diags + 1] = { e = e, text = text }
end

-- A control message: what it changes (EA protocols and sessions), or why it does not parse.
local function control(link, item, payload)
  local m, err = parse_control(payload)
  if not m then
    diag(item, ex.control_malformed, string.format("control message of %d bytes: needs %d bytes at offset %d, "
      .. "%d left", #payload, err.need, err.off, math.max(err.have, 0)))
    return
  end
  if m.id == 0x1d01 then
    local ident = identification(m)
    if ident then
      for _, p in ipairs(ident.protocols) do link.protocols[p.id] = p.name end
    end
  elseif m.id == 0xea00 then
    local pid, sid = first_param(m, 0), first_param(m, 1)
    if pid and #pid >= 1 and sid and #sid >= 2 then
      local name = link.protocols[pid:byte(1)] or ("protocol " .. pid:byte(1))
      link.ea_sessions[u16(sid, 1)] = name
      item.ea_start = name
    end
  end
end

-- A file transfer datagram: identifier, control (0x80 first, 0x40 last, low 4 bits the type), data.
local function ft_detail(s)
  if #s < 2 then return string.format("datagram of %d bytes: too short", #s) end
  local c = s:byte(2)
  local t = c % 16
  local out = string.format("transfer %d %s", s:byte(1), ft_types[t] or ("type " .. t))
  if c >= 0x80 then out = out .. " first" end
  if math.floor(c / 0x40) % 2 == 1 then out = out .. " last" end
  if t == 4 and #s >= 10 then
    local size = UInt64(0)
    for i = 3, 10 do size = size * 256 + s:byte(i) end
    out = out .. ", " .. tostring(size) .. " bytes"
  elseif #s > 2 then
    out = out .. ", " .. (#s - 2) .. " bytes"
  end
  return out
end

-- What a session payload is (0 control, 1 file transfer, 2 EA) by the SYN's session table; with no
-- SYN captured, `40 40` begins a control message and anything else is taken for EA data.
local function payload_type(link, p)
  local t = link.sessions[p.session]
  local control_like = p.payload:sub(1, 2) == "@@"
  if t == nil and not link.syn_seen then t = control_like and 0 or 2 end
  if t == nil and control_like then t = 0 end
  return t
end

local function session_payload(link, item, d, payload)
  if item.stype == 2 then
    if #payload < 2 then return end
    local sid = u16(payload, 1)
    local key = sid .. "/" .. d
    -- The binding is settled by the stream's first data, as btlens does.
    if link.ea_bound[key] == nil then link.ea_bound[key] = link.ea_sessions[sid] or false end
    local scope = string.format("iap2/%s/ea%d", link.conn, sid)
    item.ea = {
      session = sid, protocol = link.ea_sessions[sid], bound = link.ea_bound[key] or nil,
      stream = scope .. "/" .. direction_name(d), scope = scope,
    }
  elseif item.stype == 0 then
    control(link, item, payload)
  end
end

-- A link packet: its session type, and what it means for the link (btlens' IAP2Link.packet).
local function packet(link, item, raw, d, frame, now)
  local p = packet_fields(raw)
  local st = link.sessions[p.session]
  item.session_type = st and (session_types[st] or ("type " .. st))
  if not st and not link.syn_seen and p.session ~= 0 and #p.payload > 0 then
    item.session_type = p.payload:sub(1, 2) == "@@" and "control (guessed: no SYN captured)"
      or "external accessory (guessed: no SYN captured)"
  end
  if p.checksum ~= p.expected then
    diag(item, ex.payload_checksum, string.format("PSN %d: payload checksum %s, expected %s", p.psn,
      hex2(p.checksum), hex2(p.expected)))
  end
  local c, s = p.control, p.payload
  if c >= 0x80 then
    if #s >= 10 then
      link.sessions = {}
      link.syn_seen = true
      link.rto = u16(s, 5)
      local list = {}
      for i = 11, #s - 2, 3 do
        link.sessions[s:byte(i)] = s:byte(i + 1)
        list[#list + 1] = string.format("%d=%s v%d", s:byte(i),
          session_types[s:byte(i + 1)] or ("type " .. s:byte(i + 1)), s:byte(i + 2))
      end
      item.detail = string.format("version %d, %d outstanding, max %d bytes, retransmit %d ms, ack %d ms, "
        .. "%d retries, %d acks; sessions %s", s:byte(1), s:byte(2), u16(s, 3), u16(s, 5), u16(s, 7),
        s:byte(9), s:byte(10), table.concat(list, ", "))
    else
      item.detail = "link parameters cut short"
    end
    link.last_psn[d] = p.psn
    link.recent[d] = { [p.psn] = { payload = s, pan = p.pan, time = now, frame = frame } }
    link.recent_count[d] = 1
    return
  end
  if math.floor(c / 0x10) % 2 == 1 then
    link.last_psn, link.recent, link.recent_count = {}, {}, {}
  end
  if c == 0x60 then
    local list = {}
    for i = 1, #s do list[#list + 1] = tostring(s:byte(i)) end
    item.detail = "out-of-sequence PSNs (Apple semantics): " .. table.concat(list, " ")
  end
  if c ~= 0x40 or #s == 0 then return end
  item.stype = payload_type(link, p)
  local last = link.last_psn[d]
  if last then
    local gap = (p.psn - last) % 256
    if gap == 0 or gap >= 128 then
      local earlier = link.recent[d] and link.recent[d][p.psn]
      if earlier and earlier.payload == s then
        -- Apple's stack refreshes the PAN when it resends; an identical copy within the
        -- retransmission timeout is the capture logging the packet twice. Either way the
        -- packet's data was handed on with the first copy.
        local apart = math.floor((now - earlier.time) * 1e6 + 0.5)
        local duplicate = earlier.pan == p.pan and apart < link.rto * 1000
        link.recent[d][p.psn] = { payload = s, pan = p.pan, time = now, frame = frame }
        item.detail = duplicate and "duplicate" or "retransmission"
        item.earlier = earlier.frame
        item.again = true
        if item.stype == 2 and #s >= 2 then item.ea_protocol = link.ea_sessions[u16(s, 1)] end
        if duplicate then
          diag(item, ex.duplicate, string.format(
            "PSN %d captured twice, byte for byte, %d µs apart (retransmission timeout %d ms)", p.psn, apart,
            link.rto))
        else
          diag(item, ex.retransmission, string.format("PSN %d sent again with the same payload (PAN %d → %d)",
            p.psn, earlier.pan, p.pan))
        end
        return
      end
      diag(item, ex.reuse, string.format("PSN %d again with a different payload (last new PSN %d)", p.psn,
        last))
    elseif gap > 1 then
      diag(item, ex.gap, string.format("expected PSN %d, got %d: %d packet%s not seen", (last + 1) % 256, p.psn,
        gap - 1, gap == 2 and "" or "s"))
    end
  end
  link.last_psn[d] = p.psn
  link.recent[d] = link.recent[d] or {}
  if (link.recent_count[d] or 0) >= RECENT_LIMIT then
    link.recent[d], link.recent_count[d] = {}, 0
  end
  if link.recent[d][p.psn] == nil then link.recent_count[d] = (link.recent_count[d] or 0) + 1 end
  link.recent[d][p.psn] = { payload = s, pan = p.pan, time = now, frame = frame }
  session_payload(link, item, d, s)
end

-- One frame's bytes into its link: the items it completes, with what they mean.
local function push(link, data, d, frame, now)
  local f = link.framers[d] or new_framer()
  link.framers[d] = f
  append(f, data, frame)
  local items = {}
  while true do
    local item = next_item(f)
    if not item then break end
    local raw = item.len and (item.raw or data:sub(item.offset + 1, item.offset + item.len))
    if link.verdict == nil then
      link.verdict = verdict_of(item, raw)
      if link.verdict ~= "confirmed" then return items end
    end
    if item.kind == "packet" then
      local ok, err = pcall(packet, link, item, raw, d, frame, now)
      if not ok then item.error = tostring(err) end
    end
    items[#items + 1] = item
  end
  if link.verdict == nil and f.skipped > 0 then link.verdict = "bytes that form no iAP2 packet" end
  return items
end

-- Rendering -------------------------------------------------------------------------------------

local param_names = {
  [0x1d01] = { [0] = "AccessoryName", "ModelIdentifier", "Manufacturer", "SerialNumber", "FirmwareVersion",
    "HardwareVersion", "MessagesSentByAccessory", "MessagesReceivedFromDevice", "PowerProvidingCapability",
    "MaximumCurrentDrawnFromDevice", "SupportedExternalAccessoryProtocol", "AppMatchTeamID",
    "CurrentLanguage", "SupportedLanguage", "SerialTransportComponent", "USBDeviceTransportComponent",
    "USBHostTransportComponent", "BluetoothTransportComponent", "iAP2HIDComponent",
    [20] = "VehicleInformationComponent", [21] = "VehicleStatusComponent",
    [22] = "LocationInformationComponent", [23] = "USBHostHIDComponent",
    [24] = "WirelessCarPlayTransportComponent", [29] = "BluetoothHIDComponent",
    [30] = "RouteGuidanceDisplayComponent", [34] = "ProductPlanUID" },
  [0xea00] = { [0] = "ExternalAccessoryProtocolIdentifier", "ExternalAccessoryProtocolSessionIdentifier" },
  [0xea01] = { [0] = "ExternalAccessoryProtocolSessionIdentifier" },
  [0xea02] = { [0] = "AppBundleID", "LaunchAlert" },
  [0xea03] = { [0] = "ExternalAccessoryProtocolSessionIdentifier", "ExternalAccessoryProtocolSessionStatus" },
}
local ident_fields = { [0] = pf.ident_name, pf.ident_model, pf.ident_manufacturer, pf.ident_serial,
  pf.ident_firmware, pf.ident_hardware }
local ea_param_names = { [0] = "ExternalAccessoryProtocolIdentifier", "ExternalAccessoryProtocolName",
  "ExternalAccessoryProtocolMatchAction", "NativeTransportComponentIdentifier" }

local function param_item(tree, t, at, n, id, names)
  local sub = tree:add(pf.param, t(at, 4 + n))
  sub:set_text(string.format("Parameter %d%s, %d bytes", id, names[id] and (" " .. names[id]) or "", n))
  sub:add(pf.param_length, t(at, 2))
  sub:add(pf.param_id, t(at + 2, 2))
  return sub, t(at + 4, n)
end

-- The EA protocol group of IdentificationInformation.
local function show_ea_group(sub, t, p)
  local subs = read_params(p.data, 1, #p.data)
  local g = sub:add(pf.ident_ea, t(p.data_at - 1, #p.data))
  if not subs then g:append_text(" (its parameters do not add up)") end
  for _, sp in ipairs(subs or {}) do
    local m = #sp.data
    local s2, v = param_item(g, t, p.data_at - 1 + sp.at - 1, m, sp.id, ea_param_names)
    if sp.id == 0 and m >= 1 then s2:add(pf.ident_ea_id, v(0, 1))
    elseif sp.id == 1 then s2:add(pf.ident_ea_name, v, utf8z(sp.data))
    elseif sp.id == 2 and m == 1 then s2:add(pf.ident_ea_match, v)
    elseif sp.id == 3 and m == 2 then s2:add(pf.param_uint, v)
    elseif m > 0 then s2:add(pf.param_value, v) end
  end
end

-- Parameters, typed where btlens reads them. `t` is the message as a Tvb (`at` is 1-based in it).
local function show_params(tree, t, m)
  local names = param_names[m.id] or {}
  for _, p in ipairs(m.params) do
    local n = #p.data
    local sub, v = param_item(tree, t, p.at - 1, n, p.id, names)
    if n > 0 then sub:add(pf.param_value, v) end
    if m.id == 0x1d01 then
      if ident_fields[p.id] then
        sub:add(ident_fields[p.id], v, utf8z(p.data))
      elseif p.id == 11 or p.id == 12 or p.id == 13 or p.id == 34 then
        sub:add(pf.param_string, v, utf8z(p.data))
      elseif p.id == 6 or p.id == 7 then
        for k = 0, n - 2, 2 do sub:add(pf.param_message, v(k, 2)) end
      elseif p.id == 8 and n == 1 or p.id == 9 and n == 2 then
        sub:add(pf.param_uint, v)
      elseif p.id == 10 then
        show_ea_group(sub, t, p)
      end
    elseif m.id == 0xea00 and p.id == 0 and n >= 1 then
      sub:add(pf.ea_protocol_id, v(0, 1))
    elseif (m.id == 0xea00 and p.id == 1 or (m.id == 0xea01 or m.id == 0xea03) and p.id == 0) and n >= 2 then
      sub:add(pf.ea_session_id, v(0, 2))
    elseif m.id == 0xea03 and p.id == 1 and n == 1 then
      sub:add(pf.ea_status, v)
    elseif m.id == 0xea02 and p.id == 0 then
      sub:add(pf.param_string, v, utf8z(p.data))
    end
  end
end

local function show_control(tree, t, m, item)
  local name = message_names[m.id] or string.format("Unknown (0x%04x)", m.id)
  local sub = tree:add(pf.msg, t(0, math.min(math.max(m.length, 6), t:len())))
  sub:set_text(string.format("Control message %s (0x%04x)", name, m.id))
  sub:add(pf.msg_start, t(0, 2))
  sub:add(pf.msg_length, t(2, 2))
  sub:add(pf.msg_id, t(4, 2))
  sub:add(pf.msg_name, name):set_generated()
  show_params(sub, t, m)
  local ident = m.id == 0x1d01 and identification(m)
  if ident then
    local list = {}
    for _, p in ipairs(ident.protocols) do list[#list + 1] = p.id .. "=" .. p.name end
    sub:add(pf.accessory, string.format(
      "Accessory \"%s\" model \"%s\" by \"%s\" serial %s firmware %s hardware %s; EA protocols %s",
      ident.name, ident.model, ident.manufacturer, ident.serial, ident.firmware, ident.hardware,
      table.concat(list, " "))):set_generated()
  end
  if item.ea_start then sub:add(pf.ea_protocol, item.ea_start):set_generated() end
  return name
end

local function show_syn(tree, t)
  local s = tree:add(pf.payload, t(0, t:len())):set_text("Link synchronisation payload")
  if t:len() < 10 then
    s:append_text(" (cut short)")
    return
  end
  s:add(pf.syn_version, t(0, 1))
  s:add(pf.syn_outstanding, t(1, 1))
  s:add(pf.syn_max_length, t(2, 2))
  s:add(pf.syn_rto, t(4, 2))
  s:add(pf.syn_ack_timeout, t(6, 2))
  s:add(pf.syn_retries, t(8, 1))
  s:add(pf.syn_acks, t(9, 1))
  for i = 10, t:len() - 3, 3 do
    local type_id = t(i + 1, 1):uint()
    local e = s:add(pf.syn_session, t(i, 3)):set_text(string.format("Session %d: %s v%d", t(i, 1):uint(),
      session_types[type_id] or ("type " .. type_id), t(i + 2, 1):uint()))
    e:add(pf.syn_session_id, t(i, 1))
    e:add(pf.syn_session_type, t(i + 1, 1))
    e:add(pf.syn_session_version, t(i + 2, 1))
  end
end

local function show_ft(tree, t, detail)
  tree:add(pf.ft_detail, detail):set_generated()
  if t:len() < 2 then return end
  tree:add(pf.ft_id, t(0, 1))
  local c = tree:add(pf.ft_control, t(1, 1))
  c:add(pf.ft_first, t(1, 1))
  c:add(pf.ft_last, t(1, 1))
  c:add(pf.ft_type, t(1, 1))
  if t(1, 1):uint() % 16 == 4 and t:len() >= 10 then tree:add(pf.ft_size, t(2, 8)) end
  if t:len() > 2 then tree:add(pf.ft_data, t(2, t:len() - 2)) end
end

-- A session payload; returns what it adds to the Info column.
local function show_payload(pl, pt, p, item)
  local n = #p.payload
  -- A retransmitted or duplicated packet is shown as what it carries, and changes nothing.
  if item.stype == 0 then
    local m = parse_control(p.payload)
    if m then return " " .. show_control(pl, pt, m, item) end
  elseif item.stype == 2 and n >= 2 then
    local protocol = item.ea and item.ea.protocol or item.ea_protocol
    pl:add(pf.ea_session_id, pt(0, 2))
    if protocol then pl:add(pf.ea_protocol, protocol):set_generated() end
    if n > 2 then pl:add(pf.ea_data, pt(2, n - 2)) end
    pl:add(pf.ea_handed, item.ea ~= nil and n > 2):set_generated()
    if not item.again then
      return string.format(" EA %d%s, %d bytes", pt(0, 2):uint(), protocol and (" (" .. protocol .. ")") or "",
        n - 2)
    end
  elseif item.stype == 1 then
    local detail = ft_detail(p.payload)
    show_ft(pl, pt, detail)
    return " file " .. detail
  end
  return ""
end

-- A link packet's subtree; returns its summary for the Info column.
local function show_packet(tree, t, raw, item)
  local p = packet_fields(raw)
  local kind = packet_kind(p)
  local summary = string.format("%s psn %d pan %d", kind, p.psn, p.pan)
  local root = tree:add(iap2, t(0, t:len()))
  root:set_text(string.format("iAP2 %s, PSN %d, PAN %d, session %d%s", kind, p.psn, p.pan, p.session,
    item.session_type and (" (" .. item.session_type .. ")") or ""))
  root:add(pf.start, t(0, 2))
  root:add(pf.length, t(2, 2))
  local c = root:add(pf.control, t(4, 1))
  for _, bit in ipairs({ pf.syn, pf.ack, pf.eak, pf.rst, pf.sus }) do c:add(bit, t(4, 1)) end
  root:add(pf.psn, t(5, 1))
  root:add(pf.pan, t(6, 1))
  root:add(pf.session, t(7, 1))
  root:add(pf.header_checksum, t(8, 1)):append_text(" [correct]")
  root:add(pf.kind, kind):set_generated()
  if item.session_type then root:add(pf.session_type, item.session_type):set_generated() end
  if item.frames then
    root:add(pf.fragment_count, #item.frames):set_generated()
    for _, fr in ipairs(item.frames) do root:add(pf.fragment, fr):set_generated() end
  end
  if item.earlier then root:add(pf.earlier, item.earlier):set_generated() end
  if item.detail then root:add(pf.detail, item.detail):set_generated() end
  local n = #p.payload
  -- The payload in its own protected call: whatever fails there, the expert infos below are said.
  local ok, err = pcall(function()
    if n == 0 then return end
    local pt = t(9, n):tvb()
    if p.control >= 0x80 then
      show_syn(root, pt)
    elseif p.control == 0x60 then
      local e = root:add(pf.payload, t(9, n)):set_text("Out-of-sequence PSNs (Apple semantics)")
      for k = 0, n - 1 do e:add(pf.eak_psn, pt(k, 1)) end
    elseif item.stype then
      summary = summary .. show_payload(root:add(pf.payload, t(9, n)), pt, p, item)
    else
      root:add(pf.payload, t(9, n))
    end
    local ck = root:add(pf.payload_checksum, t(9 + n, 1))
    if p.checksum == p.expected then ck:append_text(" [correct]") end
  end)
  if not ok then root:add_proto_expert_info(ex.lua, ids[ex.lua] .. ": " .. tostring(err)) end
  for _, dg in ipairs(item.diags or {}) do root:add_proto_expert_info(dg.e, ids[dg.e] .. ": " .. dg.text) end
  if item.error then root:add_proto_expert_info(ex.lua, ids[ex.lua] .. ": " .. item.error) end
  if item.again then summary = summary .. " " .. item.detail end
  return summary
end

local function show_item(tvb, tree, item, infos)
  if item.kind == "skipped" then
    local e = tree:add(iap2, tvb(0, 0)):set_text(string.format("iAP2: %d bytes skipped", item.n))
    e:add_proto_expert_info(ex.resync, ids[ex.resync] .. ": " .. string.format("skipped %d bytes that form no iAP2 packet", item.n))
    infos[#infos + 1] = "resync"
    return
  elseif item.kind == "badheader" then
    local e = tree:add(iap2, tvb(0, 0)):set_text("iAP2: bad header")
    e:add_proto_expert_info(ex.header_checksum, ids[ex.header_checksum] .. ": " .. "FF 5A header whose checksum fails; resyncing on the next byte")
    infos[#infos + 1] = "bad header"
    return
  end
  -- A packet inside this frame is shown in it; one reassembled from several, in a Tvb of its own.
  local t = item.raw and ByteArray.new(item.raw, true):tvb("iAP2 packet") or tvb(item.offset, item.len):tvb()
  local raw = item.raw or tvb:raw(item.offset, item.len)
  if item.kind == "packet" then
    infos[#infos + 1] = show_packet(tree, t, raw, item)
    return
  end
  local e = tree:add(iap2, t(0, t:len()))
  local what
  if item.kind == "detect" then
    what = "FF 55 02 00 EE 10: iAP2 supported"
    e:set_text("iAP2 detect: " .. what)
    e:add(pf.detect, t(0, t:len()))
    infos[#infos + 1] = "detect"
  else
    what = raw == "\255\085\004\000\002\004\238\008" and "iAP1 NAK of the iAP2 detect: iAP1 only"
      or raw == "\255\085\002\000\000\254" and "iAP1 RequestIdentify: iAP1 only"
      or "iAP1 frame " .. raw:gsub(".", function(ch) return string.format("%02x ", ch:byte()) end):sub(1, -2)
    e:set_text("iAP2: " .. what)
    e:add(pf.iap1, t(0, t:len()))
    infos[#infos + 1] = "iAP1"
  end
  e:add(pf.kind, item.kind == "detect" and "detect" or "iAP1"):set_generated()
  e:add(pf.detail, what):set_generated()
  for _, fr in ipairs(item.frames or {}) do e:add(pf.fragment, fr):set_generated() end
end

local function show(tvb, pinfo, tree, r)
  local infos = {}
  for _, item in ipairs(r.items) do
    local ok, err = pcall(show_item, tvb, tree, item, infos)
    if not ok then tree:add(iap2, tvb(0, 0)):add_proto_expert_info(ex.lua, ids[ex.lua] .. ": " .. tostring(err)) end
  end
  if #r.items == 0 then
    tree:add(iap2, tvb(0, tvb:len())):set_text(string.format("iAP2: %d bytes of a packet not yet complete",
      tvb:len()))
    infos[#infos + 1] = "segment"
  end
  pinfo.cols.protocol = "iAP2"
  pinfo.cols.info = "iAP2 " .. table.concat(infos, "; ")
  -- EA session data, each payload to its protocol's dissector.
  local part = 0
  for _, item in ipairs(r.items) do
    local len = item.len and item.len - 12
    if item.ea and len > 0 then
      part = part + 1
      local ok, err = pcall(function()
        local data = item.raw and item.raw:sub(12, 11 + len) or tvb:raw(item.offset + 11, len)
        local ea_tvb = ByteArray.new(data, true):tvb("EA session data")
        pinfo.private["btlens_stream"] = item.ea.stream
        pinfo.private["btlens_scope"] = item.ea.scope
        pinfo.private["btlens_part"] = tostring(part)
        local d = item.ea.bound and ea_table:get_dissector(item.ea.bound) or ea_table:get_dissector("")
        if d then d:call(ea_tvb, pinfo, tree) end
      end)
      if not ok then tree:add(iap2, tvb(0, 0)):add_proto_expert_info(ex.lua, ids[ex.lua] .. ": " .. tostring(err)) end
    end
  end
end

local function link_for(pinfo)
  local handle, dlci = f_chandle(), f_dlci()
  if not handle or not dlci then return nil end
  local h = handle.value
  local conn = string.format("%d#%d", h, generation[h] or 0)
  local key = string.format("%s/%d", conn, dlci.value)
  local link = links[key]
  if not link then
    -- Decode As names this dissector for the DLCI: iAP2 without a guess (btlens' --decode-as).
    local forced = dlci_table:get_dissector(dlci.value)
    link = new_link(h, conn, forced ~= nil and tostring(forced) == tostring(Dissector.get("iap2")))
    links[key] = link
  end
  return link
end

function iap2.dissector(tvb, pinfo, tree)
  local r = results[pinfo.number]
  if r == nil and fresh(pinfo, "data") then
    local link = link_for(pinfo)
    if not link then return 0 end
    local ok, items = pcall(push, link, tvb:raw(0, tvb:len()), pinfo.p2p_dir, pinfo.number, pinfo.abs_ts)
    r = { link = link, items = ok and items or {}, error = not ok and tostring(items) or nil }
    if link.verdict == nil then
      link.held = link.held + tvb:len()
      if link.held > GUESS_LIMIT then link.verdict = "more than 1 MiB and no iAP2 item yet" end
    end
    if link.verdict ~= nil and link.verdict ~= "confirmed" and not link.withdrawn then
      link.withdrawn = true
      r.withdrawn = link.verdict
    end
    results[pinfo.number] = r
    upto.data = math.max(upto.data, pinfo.number)
  end
  if r == nil then return 0 end
  if r.withdrawn then
    tree:add(iap2, tvb(0, 0)):set_text("iAP2: not iAP2 after all"):add_proto_expert_info(ex.withdrawn,
      ids[ex.withdrawn] .. ": RFCOMM channel taken for iAP2 (its SDP record lists the iAP2 service class), but its data has "
      .. r.withdrawn .. ", where the detect bytes FF 55 02 00 EE 10 or a link packet FF 5A were expected")
    Dissector.get("data"):call(tvb, pinfo, tree)
    return tvb:len()
  end
  -- A guess withdrawn: the channel's frames are plain RFCOMM data.
  if r.link.withdrawn then return 0 end
  if r.error then tree:add(iap2, tvb(0, 0)):add_proto_expert_info(ex.lua, ids[ex.lua] .. ": " .. r.error) end
  show(tvb, pinfo, tree, r)
  return tvb:len()
end

dlci_table:add_for_decode_as(iap2)
-- Both iAP2 service classes: the Apple device's (...CAFE) and the accessory's (...CAFF).
DissectorTable.get("bluetooth.uuid"):add("00000000-deca-fade-deca-deafdecacafe", iap2)
DissectorTable.get("bluetooth.uuid"):add("00000000-deca-fade-deca-deafdecacaff", iap2)

-- The end of an ACL connection (Disconnection Complete, or a new Connection Complete on its handle)
-- ends its links, as btlens frees them: bytes left unframed are said there.
local iap2_end = Proto("iap2_end", "iAP2 link end")

local function end_links(h, reason)
  local keys, said = {}, {}
  for key, link in pairs(links) do
    if link.handle == h then keys[#keys + 1] = key end
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local link = links[key]
    for _, d in ipairs(link.verdict == "confirmed" and { 0, 1, -1 } or {}) do
      local f = link.framers[d]
      if f and f.skipped > 0 then
        said[#said + 1] = { e = ex.resync, text = string.format(
          "skipped %d bytes that form no iAP2 packet before %s", f.skipped, reason) }
      end
      local have, need
      if f then have, need = partial(f) end
      if have then
        said[#said + 1] = { e = ex.truncated, text = string.format(
          "stream ended by %s inside an iAP2 packet: %d of %d bytes", reason, have, need) }
      end
    end
    links[key] = nil
  end
  if #keys > 0 then generation[h] = (generation[h] or 0) + 1 end
  return said
end

function iap2_end.dissector(tvb, pinfo, tree)
  local r = ended[pinfo.number]
  if r == nil and fresh(pinfo, "ends") then
    local code, status, handle = f_evt_code(), f_evt_status(), f_evt_handle()
    if not code or not status or not handle or status.value ~= 0 then return end
    if code.value ~= 0x05 and code.value ~= 0x03 then return end
    r = end_links(handle.value, code.value == 0x05 and "disconnection" or "a new connection on the same handle")
    ended[pinfo.number] = r
    upto.ends = math.max(upto.ends, pinfo.number)
  end
  if r == nil or #r == 0 then return end
  local e = tree:add(iap2):set_text("iAP2: the link ends")
  for _, x in ipairs(r) do e:add_proto_expert_info(x.e, ids[x.e] .. ": " .. x.text) end
end
register_postdissector(iap2_end)
