-- The btlens runtime: streams, framing, pairing and fields, shared by every protocol below.
-- State is built on Wireshark's first pass only and kept per packet number, so the second
-- pass and packets clicked in any order show the same thing. Plugins btlens exported share
-- the first one loaded: Wireshark allows one protocol of a name. REPEAT_LIMIT and ITEM_LIMIT
-- are btlens' declarations, which the export writes just before this file.
local btlens = _G.btlens_runtime or {}
if not btlens.register then
  local bit = bit32 or bit
  local f_chandle = Field.new("bthci_acl.chandle")
  local f_att_handle = Field.new("btatt.handle")
  local f_att_opcode = Field.new("btatt.opcode")
  local f_att_offset = Field.new("btatt.offset")
  local f_att_flags = Field.new("btatt.flags")
  local f_att_uuid16 = Field.new("btatt.uuid16")
  local f_att_value = Field.new("btatt.value")
  local f_dlci = Field.new("btrfcomm.dlci")
  local f_evt_code = Field.new("bthci_evt.code")
  local f_evt_handle = Field.new("bthci_evt.connection_handle")
  local f_adv_name = Field.new("btcommon.eir_ad.entry.device_name")
  local f_adv_addr = Field.new("bthci_evt.bd_addr")

  local protos = {}     -- every registered protocol, in order
  local bound = {}      -- characteristic UUID -> the protocols bound to it ({ p, dissect }), in order
  local streams = {}    -- stream key -> stream
  local pairs_of = {}   -- pairing key -> outstanding requests
  local shown = {}      -- packet number -> part key -> frames and messages
  local notes = {}      -- packet number -> diagnostics that belong to no frame
  local queued = {}     -- connection -> handle -> offset -> bytes of a long write
  local blind = {}      -- packet number -> true where the first pass had no fields
  local advertised = {} -- device address -> the name it advertised
  local connected = {}  -- connection handle -> the peer's address
  local decided = {}    -- "packet/protocol" -> false where the device check refused the packet
  local ea_done = {}    -- "packet" .. slot -> true once an EA payload was pushed
  local said = {}       -- "packet/protocol" -> what pairing said of a whole-value message
  local finished = false
  local last_number = 0 -- the last packet of the first pass: where the end of the capture is said

  local function reset()
    streams, pairs_of, shown, notes, queued, blind, finished, last_number = {}, {}, {}, {}, {}, {}, false, 0
    advertised, connected, decided, ea_done = {}, {}, {}, {}
    said = {}
  end

  local function value(field)
    local fi = field()
    return fi and fi.value
  end

  -- A device address as "aa:bb:cc:11:22:33", from its bytes in an HCI event (least significant first):
  -- Wireshark's own text for it may be resolved to a vendor's name.
  local function address_of(field)
    local fi = field()
    if not fi or not fi.range or fi.range:len() ~= 6 then return nil end
    local b = {}
    for i = 5, 0, -1 do b[#b + 1] = string.format("%02x", fi.range(i, 1):uint()) end
    return table.concat(b, ":")
  end

  local on_devices_now, choose, bind
  -- Whether a characteristic bound on the definition's `devices` is on one of them. A stream
  -- bound by hand (Decode As) is the user's word; a device Wireshark cannot name is given the
  -- benefit of the doubt.
  local function on_devices(p, pinfo, chandle)
    if not p.c.devices then return true end
    -- Only refusals are kept: most packets pass.
    local key = pinfo.number .. "/" .. p.c.id
    if pinfo.visited then return decided[key] ~= false end
    local ok = on_devices_now(p, pinfo, chandle)
    if not ok then decided[key] = false end
    return ok
  end

  function on_devices_now(p, pinfo, chandle)
    local d = p.c.devices
    if not d or pinfo.match_string == nil then return true end
    local address = connected[tostring(chandle)]
    if not address then return true end
    for _, prefix in ipairs(d.addresses) do
      if address:sub(1, #prefix) == prefix:lower() then return true end
    end
    local name = advertised[address]
    for _, prefix in ipairs(d.names) do
      if name and name:sub(1, #prefix) == prefix then return true end
    end
    return false
  end

  local function note(number, p, id, text, at)
    notes[number] = notes[number] or {}
    table.insert(notes[number], { p = p, id = id, text = text, at = at })
  end

  local function int_at(buf, o, w, be)
    local v = 0
    for i = 0, w - 1 do v = v * 256 + buf:byte(o + 1 + (be and i or (w - 1 - i))) end
    return v
  end

  -- A header field (FrameLayout.Integer): a whole integer, or its bits `m` in a word shifted down by `sh`.
  local function int_of(buf, f)
    local v = int_at(buf, f.o, f.w, f.be)
    if f.m then v = bit.rshift(bit.band(v, f.m), f.sh) % 4294967296 end
    return v
  end

  -- The bytes a frame's checksum covers, 1-based and inclusive, the payload ending at `payload_end`
  -- (FrameFormat.checksummed): a range of the frame's parts, or what `covers` names.
  local function covered(c, ck, payload_end)
    if ck.sfrom then return ck.sfrom + 1, ck.sto or payload_end end
    return ck.covers == "after-magic" and #c.magic + 1 or ck.covers == "payload" and c.hlen + 1 or 1, payload_end
  end

  -- A number's low n bits in reverse order; bit's results are signed, so the value is made
  -- unsigned first.
  local function reflect(v, n)
    v = v % 4294967296
    local r = 0
    for _ = 1, n do
      r = r * 2 + v % 2
      v = (v - v % 2) / 2
    end
    return r
  end

  -- A CRC by the catalogue's parameters (w, poly, init, refin, refout, xorout; top, shift and mask
  -- follow from w), a bit at a time, as btlens computes it with a table.
  local function crc(p, buf, from, to)
    local reg = p.init
    for k = from, to do
      local b = buf:byte(k)
      if p.refin then b = reflect(b, 8) end
      reg = bit.bxor(reg, b * p.shift)
      for _ = 1, 8 do
        if bit.band(reg, p.top) ~= 0 then reg = bit.bxor(reg * 2, p.poly) else reg = reg * 2 end
        reg = bit.band(reg, p.mask)
      end
    end
    if p.refout then reg = reflect(reg, p.w) end
    return bit.bxor(reg, p.xorout) % 4294967296
  end

  local function compute(ck, buf, from, to)
    if ck.crc then return crc(ck.crc, buf, from, to) end
    if ck.alg == "xor8" then
      local x = 0
      for k = from, to do x = bit.bxor(x, buf:byte(k)) end
      return x
    end
    local sum, modulus = 0, ck.alg == "sum16" and 65536 or 256
    for k = from, to do sum = (sum + buf:byte(k)) % modulus end
    if ck.alg == "twos-complement8" then return (256 - sum) % 256 end
    return sum
  end

  -- One stream: the bytes of one characteristic, channel or EA session in one direction.
  local function stream(key, conn, p, dir)
    local s = streams[key]
    if not s then
      s = { p = p, conn = conn, dir = dir, buf = "", chunks = {}, insync = true, skipped = 0 }
      streams[key] = s
    end
    return s
  end

  -- The stream's bytes are a string; `chunks` says which packet each run of them came from.
  local function consume(s, n)
    s.buf = s.buf:sub(n + 1)
    while n > 0 and s.chunks[1] do
      local c = s.chunks[1]
      if c.len > n then
        c.len, n = c.len - n, 0
      else
        n = n - c.len
        table.remove(s.chunks, 1)
      end
    end
  end

  -- The packets the first `n` bytes came from, in order.
  local function packets_of(s, n)
    local list = {}
    for _, c in ipairs(s.chunks) do
      if n <= 0 then break end
      if list[#list] ~= c.n then list[#list + 1] = c.n end
      n = n - c.len
    end
    return list
  end

  local function skip(s, n)
    if s.skipped == 0 then s.skip_from = s.chunks[1] and s.chunks[1].n end
    s.skipped = s.skipped + n
    consume(s, n)
    s.insync = false
  end

  local function frame_length(c, buf, trailer)
    if c.size then return c.size end
    local n = int_of(buf, c.length) + c.adjust
    local p, e = n, #c.endb
    if c.counts == "header-payload" then p = n - (c.hlen - #c.magic)
    elseif c.counts == "frame" then p = n - c.hlen - trailer - e
    elseif c.counts == "after-length" then p = n - trailer - e - (c.hlen - c.len_end)
    elseif c.counts == "payload-checksum" then p = n - trailer end
    if p < 0 or c.hlen + p + trailer + e > c.flimit then return nil end
    return c.hlen + p + trailer + e
  end

  -- The fragment fields of the frame at the front of `buf` (a framing with them), and the length
  -- of its checksum: frames before the last of a message carry none (MessageFramer.fragmentAndTrailer).
  local function fragment_of(c, buf)
    local trailer = c.trailer
    -- A checksum some frames carry: where the flags field has its bits (MessageFramer.checksumPresent).
    if c.checksum and c.checksum.flag then
      local flags = c.flags and buf:byte(c.flags + 1) or c.flags_bits and int_of(buf, c.flags_bits) or 0
      if bit.band(flags, c.checksum.flag) == 0 then trailer = 0 end
    end
    if not (c.fidx and c.fcnt) then return nil, trailer end
    local part = { index = buf:byte(c.fidx + 1), count = buf:byte(c.fcnt + 1) }
    return part, part.index < part.count and 0 or trailer
  end

  -- Whether the frame of `total` bytes at the front of `buf` ends with the framing's end bytes.
  local function ends_right(c, buf, total)
    for i = 1, #c.endb do
      if buf:byte(total - #c.endb + i) ~= c.endb[i] then return false end
    end
    return true
  end

  -- The frame of `total` bytes at the front of the buffer: its header fields and checksums.
  -- `wire`: the bytes the frame took in the stream, where not `total` (a delimited frame's).
  local function read_frame(s, buf, total, part, trailer, wire)
    local c = s.p.c
    local fr = { raw = buf:sub(1, total), packets = packets_of(s, wire or total), part = part, trailer = trailer }
    local function at(o) return o and buf:byte(o + 1) end
    fr.version, fr.sequence, fr.flags = at(c.version), at(c.sequence), at(c.flags)
    if c.seq_bits then fr.sequence = int_of(buf, c.seq_bits) end
    if c.flags_bits then fr.flags = int_of(buf, c.flags_bits) end
    fr.command = c.command and int_of(buf, c.command) or 0
    fr.payload_start, fr.payload_end = c.hlen, total - trailer - #c.endb
    if c.checksum and trailer > 0 then
      fr.checksum = int_at(buf, fr.payload_end, c.checksum.w, c.checksum.be)
      if not part or part.count <= 1 then
        fr.expected = compute(c.checksum, buf, covered(c, c.checksum, fr.payload_end))
      end
    end
    return fr
  end

  -- A framing with no magic (MessageFramer.nextUnmarked): frames follow each other from a
  -- packet's first byte; out of sync, the bytes are junk until the next packet begins.
  local function next_unmarked(s)
    local c, buf = s.p.c, s.buf
    if #buf == 0 then return nil end
    if not s.insync then
      skip(s, #buf)
      return nil
    end
    if #buf < c.hlen then return nil end
    local part, trailer = fragment_of(c, buf)
    local total = frame_length(c, buf, trailer)
    if not total then
      skip(s, #buf)
      return nil
    end
    if #buf < total then return nil end
    if not ends_right(c, buf, total) then
      skip(s, #buf)
      return nil
    end
    local fr = read_frame(s, buf, total, part, trailer)
    consume(s, total)
    fr.skipped, fr.skip_from = s.skipped, s.skip_from
    s.skipped = 0
    return fr
  end

  -- A delimited frame's bytes between its marks, unescaped (Delimiting.unescape), or nil.
  local function unescape(d, body)
    local out, i = {}, 1
    if d.cobs then
      while i <= #body do
        local code = body:byte(i)
        if code == 0 or i + code - 1 > #body then return nil end
        out[#out + 1] = body:sub(i + 1, i + code - 1)
        i = i + code
        if code < 255 and i <= #body then out[#out + 1] = "\0" end
      end
      return table.concat(out)
    end
    if not d.esc then return body end
    while i <= #body do
      local b = body:byte(i)
      if b == d.esc then
        local code = body:byte(i + 1)
        local v = code and (d.xor and bit.bxor(code, d.xor) or d.codes[code])
        if not v then return nil end
        out[#out + 1] = string.char(v)
        i = i + 2
      else
        out[#out + 1] = string.char(b)
        i = i + 1
      end
    end
    return table.concat(out)
  end

  -- A delimited frame's unescaped bytes as a frame of `wire` bytes in the stream, or nil when its
  -- magic, size or length field says it is not one (MessageFramer.delimitedStep).
  local function delimited_frame(s, frame, wire)
    local c = s.p.c
    if #frame < c.hlen then return nil end
    for i = 1, #c.magic do
      if frame:byte(i) ~= c.magic[i] then return nil end
    end
    local part, trailer = fragment_of(c, frame)
    if #frame < c.hlen + trailer then return nil end
    if c.length and frame_length(c, frame, trailer) ~= #frame then return nil end
    return read_frame(s, frame, #frame, part, trailer, wire)
  end

  -- The next frame of a delimited framing (MessageFramer.nextDelimited), or nil.
  local function next_delimited(s)
    local c, d = s.p.c, s.p.c.delim
    while #s.buf > 0 do
      local buf = s.buf
      local e = buf:find(string.char(d.stop), 1, true)
      if not e then
        if #buf > 2 * c.flimit then skip(s, #buf) end
        return nil
      end
      local from, junk = 1, nil
      if d.start then
        local st = buf:find(string.char(d.start), 1, true)
        local again = st == 1 and buf:find(string.char(d.start), 2, true)
        if not st or st > e then junk = e
        elseif st > 1 then junk = st - 1
        elseif again and again < e then junk = again - 1
        else from = 2 end
      end
      -- At a stream's start (or after lost bytes), a frame with no end byte before it must prove
      -- itself with its checksum: it may be the tail of one begun before (MessageFramer.afterEnd).
      local proven = s.after_end or d.start
      if not junk then s.after_end = true end
      if junk then
        skip(s, junk)
      elseif e == from then
        consume(s, e)
      else
        local frame = unescape(d, buf:sub(from, e - 1))
        local fr = frame and delimited_frame(s, frame, e)
        if fr and not proven and fr.checksum ~= fr.expected and not (fr.part and fr.part.count > 1) then fr = nil end
        if not fr then
          skip(s, e)
        else
          consume(s, e)
          fr.skipped, fr.skip_from = s.skipped, s.skip_from
          s.skipped, s.insync = 0, true
          return fr
        end
      end
    end
  end

  -- The next whole frame at the front of the stream (MessageFramer's rules), or nil.
  local function next_frame(s)
    local c = s.p.c
    if c.delim then return next_delimited(s) end
    if #c.magic == 0 then return next_unmarked(s) end
    while #s.buf > 0 do
      local buf = s.buf
      if buf:byte(1) ~= c.magic[1] then
        local j = buf:find(c.magic_char, 2, true)
        skip(s, (j or #buf + 1) - 1)
      else
        local wrong = false
        for i = 2, math.min(#c.magic, #buf) do
          if buf:byte(i) ~= c.magic[i] then wrong = true end
        end
        if wrong then skip(s, 1)
        elseif #buf < c.hlen then return nil
        else
          local part, trailer = fragment_of(c, buf)
          local total = frame_length(c, buf, trailer)
          if not total then skip(s, 1)
          elseif #buf < total then return nil
          elseif not ends_right(c, buf, total) then skip(s, 1)
          else
            local fr = read_frame(s, buf, total, part, trailer)
            local ok = fr.checksum == fr.expected
            if ok or s.insync or (part and part.count > 1) then
              consume(s, total)
              fr.skipped, fr.skip_from = s.skipped, s.skip_from
              s.skipped, s.insync = 0, true
              return fr
            end
            skip(s, 1)
          end
        end
      end
    end
  end

  local function hex(v, digits) return string.format("0x%0" .. (digits or 2) .. "x", v) end

  local function label(p, command, dir)
    local name = p.c.names[dir][command]
    return name and (name .. " (" .. hex(command) .. ")") or ("command " .. hex(command))
  end

  -- Requests still waiting for a response, per protocol and connection (or channel, EA session).
  local function unanswered(p, r, why, number)
    note(number, p, "a5.request.unanswered",
      label(p, r.command, 0) .. (r.sequence and (" sequence " .. r.sequence) or "") ..
      " sent at #" .. r.number .. ": no response " .. why)
  end

  local function expected_response(rule, command)
    local k = rule.response
    if k == "same" then return command
    elseif k == "or" then return bit.bor(command, rule.value)
    elseif k == "plus" then return (command + rule.value) % (rule.width == 2 and 65536 or 256)
    elseif k == "table" then return rule.table[command] end
    return nil
  end

  local function could_respond(rule, command)
    if rule.response == "or" then return bit.band(command, rule.value) == rule.value
    elseif rule.response == "table" then
      for _, v in pairs(rule.table) do if v == command then return true end end
      return false
    end
    return true
  end

  local token_of -- below, after the fields' walk

  -- `kept`: what the packet keeps of the frame, which the pairing annotates.
  local function pair(s, fr, kept, number, time)
    local p, rule = s.p, s.p.c.pairing
    if not rule then return end
    local key = s.pair_key
    local list = pairs_of[key] or {}
    pairs_of[key] = list
    while list[1] and (time - list[1].time) * 1e6 > rule.timeout_us do
      unanswered(p, table.remove(list, 1), "within " .. math.floor(rule.timeout_us / 1000) .. " ms", number)
    end
    local kind = p.c.kinds[s.dir][fr.command]
      or (s.dir == 0 and "request" or (could_respond(rule, fr.command) and "response" or "event"))
    local token = rule.path and token_of(p, s.dir, fr.command,
      fr.payload or fr.joined or fr.raw:sub(fr.payload_start + 1, fr.payload_end))
    if kind == "request" then
      local expected = expected_response(rule, fr.command)
      if rule.response == "table" and expected == nil then return end
      list[#list + 1] = { number = number, time = time, command = fr.command, sequence = fr.sequence,
        expected = expected, frame = kept, token = rule.match == "echo" and fr.command or token }
      if #list > p.c.pending then
        unanswered(p, table.remove(list, 1), "before " .. p.c.pending .. " newer requests", number)
      end
    elseif kind == "response" then
      for i, r in ipairs(list) do
        local fits
        if rule.match == "sequence" then
          fits = r.sequence == fr.sequence and (r.expected == nil or r.expected == fr.command)
        elseif rule.path then
          fits = token ~= nil and r.token == token and (r.expected == nil or r.expected == fr.command)
        else
          fits = r.expected == fr.command
        end
        if fits then
          table.remove(list, i)
          -- Microseconds, as capture timestamps hold no finer time.
          kept.response_to, kept.latency = r.number, math.floor((time - r.time) * 1e6 + 0.5) / 1000
          r.frame.response_in = number
          return
        end
      end
      kept.diags = kept.diags or {}
      kept.diags[#kept.diags + 1] = { id = "a5.response.unsolicited",
        text = label(p, fr.command, s.dir) .. (fr.sequence and (" sequence " .. fr.sequence) or "") ..
          ": no outstanding request it answers" }
    end
  end

  -- Drops a message of flagged frames being joined (FramedStream.abandonFlagged).
  local function abandon_flagged(s, why, number)
    local j = s.flagged
    if not j then return end
    s.flagged = nil
    note(number, s.p, "a5.fragment.missing", "message " .. hex(j.first.command) ..
      (j.first.sequence and (" sequence " .. j.first.sequence) or "") .. ": " .. j.frames ..
      " frames, then " .. why .. "; " .. j.bytes .. " bytes dropped")
  end

  local function abandon(s, why, number)
    abandon_flagged(s, why, number)
    local j = s.joining
    if not j then return end
    s.joining = nil
    note(number, s.p, "a5.fragment.missing", "message " .. hex(j.first.command) ..
      (j.first.sequence and (" sequence " .. j.first.sequence) or "") .. ": " .. (j.next - 1) .. " of " ..
      j.first.part.count .. " frames, then " .. why .. "; " .. j.bytes .. " bytes dropped")
  end

  -- A frame's sequence against the one before it (FramedStream.trackSequence): the stream's one
  -- counter, or one per value of a header field (`sequence-per`), at most 256 of them per stream as
  -- in btlens. `fr` holds the frame's header fields; diagnostics are added to `diags`.
  local function track_sequence(s, fr, diags)
    local c = s.p.c
    if not fr.sequence or (c.echoes and s.dir == 1) or c.seq_per[s.dir] == "none" then return end
    local per, key, last = c.seq_per[s.dir], nil, nil
    s.last_seq = s.last_seq or { n = 0 }
    if per ~= "stream" then
      key = fr[per]
      if key == nil then return end
      last = s.last_seq[key]
      if last == nil then
        if s.last_seq.n < 256 then s.last_seq[key], s.last_seq.n = fr.sequence, s.last_seq.n + 1 end
        return
      end
    else
      last = s.last_sequence
    end
    if key then s.last_seq[key] = fr.sequence else s.last_sequence = fr.sequence end
    if not last then return end
    local want = (last + 1) % 256
    local under = key and (" for " .. per .. " " .. hex(key)) or ""
    if fr.sequence == last then
      diags[#diags + 1] = { id = "a5.sequence.duplicate",
        text = "sequence " .. fr.sequence .. " again (command " .. hex(fr.command) .. ")" }
    elseif fr.sequence ~= want then
      local missing = (fr.sequence - want) % 256
      diags[#diags + 1] = { id = "a5.sequence.gap", text = "expected sequence " .. want .. under .. ", got " ..
        fr.sequence .. ": " .. missing .. " frame" .. (missing == 1 and "" or "s") .. " missing" }
    end
  end

  -- A whole frame (or a message joined from several): checked, paired, and kept for its packet.
  -- A frame is kept small, as every one stays for the whole capture: its bytes, and only what
  -- cannot be read again from them (show_frame reads the header back).
  local function accept(s, fr, number, time, out)
    local c = s.p.c
    local kept = { raw = fr.raw }
    if fr.trailer ~= c.trailer then kept.trailer = fr.trailer end
    if fr.joined then kept.joined, kept.checksum, kept.expected = fr.joined, fr.checksum, fr.expected end
    if fr.packets[2] or fr.packets[1] ~= number then kept.packets = fr.packets end
    fr.diags = {}
    if c.a5 and fr.version and fr.version ~= 1 then
      fr.diags[#fr.diags + 1] = { id = "a5.version.unknown", text = "version " .. hex(fr.version) .. "; expected 0x01" }
    end
    if fr.checksum and fr.expected and fr.checksum ~= fr.expected then
      local d = 2 * c.checksum.w
      fr.diags[#fr.diags + 1] = { id = "a5.checksum.bad", text = "command " .. hex(fr.command) ..
        (fr.sequence and (" sequence " .. fr.sequence) or "") .. ": checksum " .. hex(fr.checksum, d) ..
        ", expected " .. hex(fr.expected, d) }
    end
    if not fr.tracked then track_sequence(s, fr, fr.diags) end
    if fr.diags[1] then kept.diags = fr.diags end
    pair(s, fr, kept, number, time)
    out[#out + 1] = kept
  end

  -- A message of frames that each say another follows (FramedStream.joinFlagged): each frame's
  -- checksum is its own; a flagged frame's payload may begin with the message's total length.
  local function join_flagged(s, fr, number, time, out)
    local c, more = s.p.c, s.p.c.more
    local follows = bit.band(fr.flags or 0, more.flag) ~= 0
    if not follows and not s.flagged then return accept(s, fr, number, time, out) end
    local from, total = fr.payload_start + 1, nil
    if follows and more.tw > 0 then
      if fr.payload_end - fr.payload_start < more.tw then
        abandon_flagged(s, "a frame too short for its total length", number)
        note(number, s.p, "a5.fragment.missing", "message " .. hex(fr.command) ..
          ": a frame too short for its total length; " .. #fr.raw .. " bytes dropped")
        return
      end
      total = int_at(fr.raw, fr.payload_start, more.tw, more.tbe)
      from = from + more.tw
    end
    local diags = {}
    track_sequence(s, fr, diags)
    for _, d in ipairs(diags) do note(number, s.p, d.id, d.text) end
    local j = s.flagged or { first = fr, payload = "", total = total, bytes = 0, frames = 0, packets = {} }
    j.payload = j.payload .. fr.raw:sub(from, fr.payload_end)
    j.bytes, j.frames = j.bytes + #fr.raw, j.frames + 1
    for _, n in ipairs(fr.packets) do if n ~= j.packets[#j.packets] then j.packets[#j.packets + 1] = n end end
    if not j.bad and fr.checksum and fr.expected and fr.checksum ~= fr.expected then j.bad = { fr.checksum, fr.expected } end
    s.flagged = j
    local limit = math.min(c.limit, j.total or c.limit)
    if #j.payload > limit then return abandon_flagged(s, "its joined payload passed " .. limit .. " bytes", number) end
    if follows then return end
    if j.total and #j.payload ~= j.total then
      return abandon_flagged(s, #j.payload .. " of its " .. j.total .. " bytes at its last frame", number)
    end
    s.flagged = nil
    local whole = j.first
    whole.joined, whole.packets, whole.tracked = j.payload, j.packets, true
    whole.checksum, whole.expected = fr.checksum, fr.expected
    if j.bad then whole.checksum, whole.expected = j.bad[1], j.bad[2] end
    accept(s, whole, number, time, out)
  end

  local function join(s, fr, number, time, out)
    if s.p.c.more then return join_flagged(s, fr, number, time, out) end
    local part = fr.part
    if not part or part.count <= 1 then
      abandon(s, "a frame of another message", number)
      return accept(s, fr, number, time, out)
    end
    if part.index == 1 then
      abandon(s, "the first frame of another message", number)
      s.joining = { first = fr, payload = fr.raw:sub(fr.payload_start + 1, fr.payload_end), next = 2, packets = {},
        bytes = #fr.raw }
      for _, n in ipairs(fr.packets) do s.joining.packets[#s.joining.packets + 1] = n end
      return
    end
    local j = s.joining
    if not j or part.index ~= j.next or part.count ~= j.first.part.count or fr.sequence ~= j.first.sequence then
      abandon(s, "frame " .. part.index .. " of " .. part.count, number)
      note(number, s.p, "a5.fragment.missing", "message " .. hex(fr.command) ..
        (fr.sequence and (" sequence " .. fr.sequence) or "") .. ": frame " .. part.index .. " of " ..
        part.count .. " with no earlier frames of its message; " .. #fr.raw .. " bytes dropped")
      return
    end
    j.payload = j.payload .. fr.raw:sub(fr.payload_start + 1, fr.payload_end)
    j.bytes = j.bytes + #fr.raw
    for _, n in ipairs(fr.packets) do if n ~= j.packets[#j.packets] then j.packets[#j.packets + 1] = n end end
    j.next = part.index + 1
    if #j.payload > s.p.c.limit then return abandon(s, "its joined payload passed " .. s.p.c.limit .. " bytes", number) end
    if part.index < part.count then return end
    s.joining = nil
    local whole = j.first
    whole.joined, whole.packets, whole.checksum = j.payload, j.packets, fr.checksum
    whole.expected = s.p.c.checksum and compute(s.p.c.checksum, j.payload, 1, #j.payload)
    accept(s, whole, number, time, out)
  end

  local function resync(s, count, from, before, number)
    note(number, s.p, "a5.resync", "skipped " .. count .. " byte" .. (count == 1 and "" or "s") ..
      " that do not form a frame (from packet " .. tostring(from) .. "), " .. (before and (before.sequence and ("before the frame with sequence " ..
      before.sequence) or ("before the frame with command " .. hex(before.command))) or "with no frame after them"))
  end

  -- The framing's preamble at the stream's start (MessageFramer.takePreamble), consumed and said
  -- once whole; false while the bytes so far may yet be it.
  local function take_preamble(s, number)
    local pre = s.p.c.preamble
    local n = math.min(#s.buf, #pre)
    for i = 1, n do
      if s.buf:byte(i) ~= pre[i] then
        s.pre_done = true
        return true
      end
    end
    if n < #pre then return false end
    consume(s, n)
    s.pre_done, s.after_end = true, true
    note(number, s.p, "a5.preamble", "the stream's preamble (" .. n .. " bytes), before its first frame")
    return true
  end

  -- `parts`: the packets the bytes came from ({ n, len } runs), where not all from this one (a long write).
  local function push(s, raw, number, time, parts)
    -- Frames that never span values (`span-values: false`): what the last value left is junk.
    if not s.p.c.spans and #s.buf > 0 then skip(s, #s.buf) end
    if #s.p.c.magic == 0 and not s.p.c.delim and #s.buf == 0 then s.insync = true end
    s.buf = s.buf .. raw
    for _, c in ipairs(parts or { { n = number, len = #raw } }) do s.chunks[#s.chunks + 1] = c end
    local out = {}
    if #s.p.c.preamble > 0 and not s.pre_done and not take_preamble(s, number) then return out end
    while true do
      local fr = next_frame(s)
      if not fr then break end
      if fr.skipped > 0 then resync(s, fr.skipped, fr.skip_from, fr, number) end
      join(s, fr, number, time, out)
    end
    return out
  end

  -- The stream ends or loses bytes: what is left is reported where it began.
  local function leftovers(s, why, number)
    abandon(s, "the stream ended (" .. why .. ")", number)
    if s.skipped > 0 then
      resync(s, s.skipped, s.skip_from, nil, number)
      s.skipped = 0
    end
    if #s.buf > 0 then
      local need = s.p.c.hlen
      if #s.buf >= s.p.c.hlen then
        local part_trailer = s.p.c.trailer
        if s.p.c.fidx and s.p.c.fcnt and s.buf:byte(s.p.c.fidx + 1) < s.buf:byte(s.p.c.fcnt + 1) then part_trailer = 0 end
        need = frame_length(s.p.c, s.buf, part_trailer) or s.p.c.hlen
      end
      note(number, s.p, "a5.truncated", "stream ended by " .. why .. " inside a frame begun in packet " ..
        s.chunks[1].n .. ": " .. #s.buf .. " of " .. need .. " bytes present")
    end
    s.buf, s.chunks = "", {}
  end

  local function end_connection(conn, why, number)
    for key, s in pairs(streams) do
      if s.conn == conn then
        leftovers(s, why, number)
        streams[key] = nil
      end
    end
    for key, list in pairs(pairs_of) do
      if list.conn == conn then
        for _, r in ipairs(list) do unanswered(list.p, r, "before " .. why, number) end
        pairs_of[key] = nil
      end
    end
  end

  -- Once the first pass is over, streams left open end with the capture.
  local function finish()
    if finished then return end
    finished = true
    local keys = {}
    for key in pairs(streams) do keys[#keys + 1] = key end
    table.sort(keys)
    for _, key in ipairs(keys) do leftovers(streams[key], "the end of the capture", last_number) end
    keys = {}
    for key in pairs(pairs_of) do keys[#keys + 1] = key end
    table.sort(keys)
    for _, key in ipairs(keys) do
      for _, r in ipairs(pairs_of[key]) do unanswered(pairs_of[key].p, r, "before the end of the capture", last_number) end
    end
    streams, pairs_of = {}, {}
  end

  -- A message's fields as the definition lists them (FieldDecoder's rules).
  local walk
  local function short(name, needed, offset, stop)
    error({ id = "a5.payload.short", text = "field " .. name .. " needs " .. needed .. " byte" ..
      (needed == 1 and "" or "s") .. " at payload offset " .. offset .. ", " .. (stop - offset) .. " left" }, 0)
  end

  -- Protocol Buffers read without a schema (ProtobufRaw): records by field number; a length-
  -- delimited value as a nested message when it reads whole as one, else text, else bytes.
  local PB_DEPTH = 16

  -- A base-128 varint at raw[i], low group first: its value and the index after it, or nil.
  local function pb_varint(raw, i)
    local v, mult = 0, 1
    for k = 0, 9 do
      local b = raw:byte(i + k)
      if not b then return nil end
      v = v + (b % 128) * mult
      mult = mult * 128
      if b < 128 then return v, i + k + 1 end
    end
    return nil
  end

  -- The records of `raw` ({ n, wt, v, at, len, from, to }), then, if reading stopped before its
  -- end, the 0-based offset and the reason.
  local function pb_records(raw)
    local list, i = {}, 1
    while i <= #raw do
      if #list >= REPEAT_LIMIT then return list, i - 1, "more than " .. REPEAT_LIMIT .. " fields" end
      local tag, ni = pb_varint(raw, i)
      if not tag then return list, #raw, "a varint is cut off" end
      local n, wt = math.floor(tag / 8), tag % 8
      if n == 0 or n >= 536870912 then return list, i - 1, "field number " .. n .. "; expected 1 to 536870911" end
      local r = { n = n, wt = wt, from = i }
      local need
      if wt == 0 then
        r.v, r.to = pb_varint(raw, ni)
        if not r.v then return list, #raw, "a varint is cut off" end
      elseif wt == 1 or wt == 5 then
        need = wt == 1 and 8 or 4
        r.at, r.len = ni, need
      elseif wt == 2 then
        local len, at = pb_varint(raw, ni)
        if not len then return list, #raw, "a varint is cut off" end
        need, r.at, r.len = len, at, len
      else
        return list, i - 1, "field " .. n .. " has wire type " .. wt
      end
      if need then
        if r.at + need - 1 > #raw then
          return list, r.at - 1, "field " .. n .. " needs " .. need .. " bytes, " .. (#raw - r.at + 1) .. " left"
        end
        r.to = r.at + need
      end
      list[#list + 1] = r
      i = r.to
    end
    return list
  end

  local function pb_show(raw, list, t, off, tree, depth)
    for _, r in ipairs(list) do
      local range = t(off + r.from - 1, r.to - r.from)
      if r.wt == 0 then
        tree:add(range, r.n .. ": " .. string.format("%.0f", r.v))
      elseif r.wt == 1 or r.wt == 5 then
        local v = 0
        for k = r.len, 1, -1 do v = v * 256 + raw:byte(r.at + k - 1) end
        tree:add(range, r.n .. ": " .. string.format("%.0f", v))
      else
        local sub = raw:sub(r.at, r.at + r.len - 1)
        local inner, stopped = pb_records(sub)
        if depth < PB_DEPTH and #sub > 0 and not stopped then
          pb_show(sub, inner, t, off + r.at - 1, tree:add(range, r.n .. ":"), depth + 1)
        elseif not sub:find("[%z\1-\8\11\12\14-\31\127]") and (not utf8 or utf8.len(sub)) then
          tree:add(range, r.n .. ": \"" .. sub .. "\"")
        else
          tree:add(range, r.n .. ": " .. (sub:gsub(".", function(c) return string.format("%02x", c:byte()) end)))
        end
      end
    end
  end

  local payload_single, show_time, unpadded -- the payload types, defined below `single`
  local HELD_BITS = "\0bits" -- the scope's key for the byte bit fields read from, never a field's name

  -- The bytes a sized kind takes at off (a number, an earlier field's value, or to stop); short if
  -- fewer are left.
  local function sized(s, kind, off, stop, scope)
    local size = kind.z == "eos" and (stop - off) or (type(kind.z) == "string" and math.max(0, scope[kind.z] or 0) or kind.z)
    if off + size > stop then short(s.n, size, off, stop) end
    return size
  end

  -- An integer's item over `r` (with `given`, the value as its field takes it, when `r` is not it),
  -- `v` kept for later fields, shown as its unit, scale, flags or time says, checked against `valid`.
  local function int_item(p, s, kind, r, v, given, tree, scope, problems)
    local item
    if given then item = tree:add(p.fields[kind.f], r, given)
    else item = kind.be and tree:add(p.fields[kind.f], r) or tree:add_le(p.fields[kind.f], r) end
    scope[s.n] = v
    if s.tm then show_time(s, item, v, problems)
    elseif s.sc or s.of then
      item:append_text(" (" .. (v * (s.sc or 1) + (s.of or 0)) .. (s.u or "") .. ")")
    elseif s.u then
      item:append_text(s.u)
    end
    for _, flag in ipairs(s.fl or {}) do
      if kind.be then item:add(p.fields[flag[3]], r) else item:add_le(p.fields[flag[3]], r) end
    end
    local bad
    if s.lo and v < s.lo or s.hi and v > s.hi then bad = true end
    if s.any then
      bad = true
      for _, a in ipairs(s.any) do if a == v then bad = false end end
    end
    if bad then
      local function num(x) return x and string.format("%.15g", x) or "" end
      local want = {}
      for _, a in ipairs(s.any or {}) do want[#want + 1] = tostring(a) end
      problems[#problems + 1] = { id = "a5.field.invalid", item = item, text = s.n .. " is " .. v .. "; expected " ..
        (s.any and ("one of " .. table.concat(want, ", ")) or (num(s.lo) .. "…" .. num(s.hi))) }
    end
  end

  local function single(p, s, kind, t, off, stop, tree, scope, problems)
    if kind.k ~= "bits" then scope[HELD_BITS] = nil end
    -- Counted in the message's problems table, which every group and list of it shares (FieldDecoder.produced).
    problems.produced = (problems.produced or 0) + 1
    if problems.produced > ITEM_LIMIT then
      error({ id = "a5.payload.items", text = ITEM_LIMIT .. " values decoded at payload offset " .. off ..
        "; a message may produce no more" }, 0)
    end
    if kind.k == "int" then
      if off + kind.w > stop then short(s.n, kind.w, off, stop) end
      local r = t(off, kind.w)
      local v
      if kind.w > 4 then
        v = kind.be and (kind.s and r:int64() or r:uint64()) or (kind.s and r:le_int64() or r:le_uint64())
        v = tonumber(tostring(v))
      else
        v = kind.be and r:uint() or r:le_uint()
        -- Signed by hand: TvbRange's int() reads no 3-byte value.
        if kind.s and v >= 2 ^ (8 * kind.w - 1) then v = v - 2 ^ (8 * kind.w) end
      end
      int_item(p, s, kind, r, v, nil, tree, scope, problems)
      return off + kind.w
    elseif kind.k == "bytes" or kind.k == "string" then
      local size = sized(s, kind, off, stop, scope)
      if s.pad and kind.k == "string" then
        tree:add(p.fields[kind.f], t(off, size), unpadded(size > 0 and t(off, size):raw() or "", s.pad))
      else
        tree:add(p.fields[kind.f], t(off, size))
      end
      scope[s.n] = size > 0 and t(off, size):raw() or ""
      return off + size
    elseif kind.k == "protobuf" then
      local size = sized(s, kind, off, stop, scope)
      local sub = tree:add(p.fields[kind.f], t(off, size))
      local raw = size > 0 and t(off, size):raw() or ""
      local list, at, why = pb_records(raw)
      scope[s.n .. "."] = { pb = raw }
      pb_show(raw, list, t, off, sub, 1)
      if at then
        problems[#problems + 1] = { id = "a5.field.invalid", item = sub,
          text = s.n .. " is not a protobuf message at payload offset " .. (off + at) .. ": " .. why }
      end
      return off + size
    elseif kind.k == "group" then
      local sub = tree:add(p.fields[kind.f], t(off, 0))
      local inner = {}
      for k, v in pairs(scope) do inner[k] = v end
      scope[s.n .. "."] = inner
      local ok, after = pcall(walk, p, kind.g, t, off, stop, sub, inner, problems)
      if not ok then error(after, 0) end
      sub:set_len(after - off)
      return after
    elseif kind.k == "switch" then
      return single(p, s, kind.cases[scope[kind.on] or 0] or kind.fb or { k = "bytes", z = "eos" },
        t, off, stop, tree, scope, problems)
    elseif payload_single[kind.k] then
      return payload_single[kind.k](p, s, kind, t, off, stop, tree, scope, problems)
    end
    return stop
  end

  -- Payload types beyond fixed integers, bytes and text (FieldDecoder+Payload).
  payload_single = {}

  -- An unsigned LEB128 varint, at most 10 bytes; zigzag-decoded for svarint. Cut off or longer
  -- stops the message, as btlens stops.
  function payload_single.varint(p, s, kind, t, off, stop, tree, scope, problems)
    local v, mult, k = 0, 1, 0
    repeat
      local why = k == 10 and " is a varint longer than 10 bytes" or off + k >= stop and " is a varint cut off"
      if why then error({ id = "a5.field.invalid", text = s.n .. why .. " at payload offset " .. off }, 0) end
      local b = t(off + k, 1):uint()
      v, mult, k = v + (b % 128) * mult, mult * 128, k + 1
    until b < 128
    if kind.s then v = v % 2 == 0 and v / 2 or -(v + 1) / 2 end
    -- A 64-bit field takes an Int64 or UInt64: exact to 2^53, as Lua's numbers are.
    int_item(p, s, kind, t(off, k), v, kind.s and Int64.new(v) or UInt64.new(v), tree, scope, problems)
    return off + k
  end

  -- b1 … b64: bits most significant first, from the byte the bit fields before left bits in.
  function payload_single.bits(p, s, kind, t, off, stop, tree, scope, problems)
    local held = scope[HELD_BITS] or { left = 0 }
    local v, needed, first = 0, kind.n, held.left > 0 and off - 1 or off
    while needed > 0 do
      if held.left == 0 then
        if off >= stop then short(s.n, 1, off, stop) end
        held = { byte = t(off, 1):uint(), left = 8 }
        off = off + 1
      end
      local take = math.min(needed, held.left)
      v = v * 2 ^ take + math.floor(held.byte / 2 ^ (held.left - take)) % 2 ^ take
      held.left, needed = held.left - take, needed - take
    end
    scope[HELD_BITS] = held
    int_item(p, s, kind, t(first, off - first), v, kind.w == 8 and UInt64.new(v) or v, tree, scope, problems)
    return off
  end

  -- IEEE 754 binary16, which TvbRange does not read.
  local function half(b)
    local sign = b >= 0x8000 and -1 or 1
    local e, f = math.floor(b / 1024) % 32, b % 1024
    if e == 31 then return f == 0 and sign * math.huge or 0 / 0 end
    if e == 0 then return sign * f * 2 ^ -24 end
    return sign * (1 + f / 1024) * 2 ^ (e - 15)
  end

  function payload_single.float(p, s, kind, t, off, stop, tree, scope, problems)
    if off + kind.w > stop then short(s.n, kind.w, off, stop) end
    local r = t(off, kind.w)
    local v
    if kind.w == 2 then v = half(kind.be and r:uint() or r:le_uint())
    else v = kind.be and r:float() or r:le_float() end
    local item = tree:add(p.fields[kind.f], r, v)
    if s.sc or s.of then
      item:append_text(" (" .. (v * (s.sc or 1) + (s.of or 0)) .. (s.u or "") .. ")")
    elseif s.u then
      item:append_text(s.u)
    end
    return off + kind.w
  end

  -- Text up to the first 00, which is read too; within the size when there is one.
  function payload_single.strz(p, s, kind, t, off, stop, tree, scope, problems)
    local size, ended = nil, true
    if kind.z then
      size = sized(s, kind, off, stop, scope)
    else
      local at = (stop > off and t(off, stop - off):raw() or ""):find("\0", 1, true)
      size, ended = at or (stop - off), at ~= nil
    end
    local raw = size > 0 and t(off, size):raw() or ""
    local item = tree:add(p.fields[kind.f], t(off, size), raw:sub(1, (raw:find("\0", 1, true) or #raw + 1) - 1))
    if not ended then
      problems[#problems + 1] = { id = "a5.field.invalid", item = item,
        text = s.n .. " has no 00 terminator at payload offset " .. off }
    end
    return off + size
  end

  -- An integer counting s.tm units since 1970 as ISO 8601 UTC; 1970 to 9999, as btlens.
  function show_time(s, item, v, problems)
    local secs = math.floor(v / s.tm)
    if v < 0 or secs > 253402300799 then
      problems[#problems + 1] = { id = "a5.field.invalid", item = item,
        text = s.n .. " is " .. string.format("%.0f", v) .. "; expected a time from 1970 to 9999" }
      return
    end
    local text = os.date("!%Y-%m-%dT%H:%M:%S", secs)
    local fraction = v - secs * s.tm
    if fraction ~= 0 then text = text .. string.format(s.tm == 1000 and ".%03d" or ".%06d", fraction) end
    item:append_text(" (" .. text .. "Z)")
  end

  -- Protocol Buffers read by a definition's schema (ProtobufSchema): field names and types from
  -- p.c.protobufs; unknown numbers as the raw reader shows them. The same problems as btlens: a
  -- message that stops being protobuf, a packed field cut off, a wire type the schema disagrees with.
  local PB_WIRE = { int32 = 0, int64 = 0, uint32 = 0, uint64 = 0, sint32 = 0, sint64 = 0, bool = 0, enum = 0,
    fixed64 = 1, sfixed64 = 1, double = 1, string = 2, bytes = 2, message = 2, fixed32 = 5, sfixed32 = 5, float = 5 }

  -- A varint as its field's type reads it (Lua numbers: exact to 2^53).
  local function pb_number(f, v)
    if f.t == "sint32" or f.t == "sint64" then return string.format("%.0f", v % 2 == 0 and v / 2 or -(v + 1) / 2) end
    if f.t == "bool" then return v ~= 0 and "true" or "false" end
    if f.t == "int32" or f.t == "enum" or f.t == "uint32" then
      v = v % 2 ^ 32
      if f.t ~= "uint32" and v >= 2 ^ 31 then v = v - 2 ^ 32 end
    end
    if f.t == "enum" then return f.e and f.e[v] or string.format("%.0f?", v) end
    return string.format("%.0f", v)
  end

  local function pb_fixed(f, r)
    if f.t == "float" or f.t == "double" then return tostring(r:le_float()) end
    if f.t == "sfixed32" then return tostring(r:le_int()) end
    if f.t == "fixed32" then return tostring(r:le_uint()) end
    return tostring(f.t == "sfixed64" and r:le_int64() or r:le_uint64())
  end

  local pb_schema
  -- The values of a packed repeated scalar, one after another in bytes from..to-1 of raw.
  local function pb_packed(f, raw, from, to, t, off, tree, fail)
    local i, n, w = from, 0, PB_WIRE[f.t] == 1 and 8 or 4
    while i < to and n < REPEAT_LIMIT do
      if PB_WIRE[f.t] == 0 then
        local v, ni = pb_varint(raw, i)
        if not v or ni > to then return fail(i - 1, "packed field: a varint is cut off") end
        tree:add(t(off + i - 1, ni - i), f.n .. ": " .. pb_number(f, v))
        i = ni
      else
        if i + w > to then return fail(i - 1, "packed field: " .. w .. " bytes, " .. (to - i) .. " left") end
        tree:add(t(off + i - 1, w), f.n .. ": " .. pb_fixed(f, t(off + i - 1, w)))
        i = i + w
      end
      n = n + 1
    end
  end

  function pb_schema(c, name, raw, t, off, tree, depth, fail)
    local list, at, why = pb_records(raw)
    if at then fail(off + at, why) end
    local msg = c.protobufs[name] or {}
    for _, r in ipairs(list) do
      local f = msg[r.n]
      local range = t(off + r.from - 1, r.to - r.from)
      if not f then
        pb_show(raw, { r }, t, off, tree, depth)
      elseif r.wt == 2 and PB_WIRE[f.t] ~= 2 then
        pb_packed(f, raw, r.at, r.at + r.len, t, off, tree, function(o, text) fail(off + o, text) end)
      elseif r.wt ~= PB_WIRE[f.t] then
        fail(off + r.from - 1, "field " .. r.n .. " (" .. f.n .. ") has wire type " .. r.wt .. "; expected " .. PB_WIRE[f.t])
        pb_show(raw, { r }, t, off, tree, depth)
      elseif f.t == "message" and depth < PB_DEPTH then
        pb_schema(c, f.m, raw:sub(r.at, r.at + r.len - 1), t, off + r.at - 1, tree:add(range, f.n .. ":"), depth + 1, fail)
      elseif r.wt == 2 then
        local sub = raw:sub(r.at, r.at + r.len - 1)
        local text = f.t == "string" and (not utf8 or utf8.len(sub)) and ("\"" .. sub .. "\"")
        tree:add(range, f.n .. ": " .. (text or sub:gsub(".", function(ch) return string.format("%02x", ch:byte()) end)))
      elseif r.wt == 0 then
        tree:add(range, f.n .. ": " .. pb_number(f, r.v))
      else
        tree:add(range, f.n .. ": " .. pb_fixed(f, t(off + r.at - 1, r.len)))
      end
    end
  end

  function payload_single.pbs(p, s, kind, t, off, stop, tree, scope, problems)
    local size = sized(s, kind, off, stop, scope)
    local sub = tree:add(p.fields[kind.f], t(off, size))
    local function fail(at, why)
      problems[#problems + 1] = { id = "a5.field.invalid", item = sub,
        text = s.n .. " (" .. kind.m .. "): " .. why .. ", at payload offset " .. at }
    end
    pb_schema(p.c, kind.m, size > 0 and t(off, size):raw() or "", t, off, sub, 1, fail)
    return off + size
  end

  -- Tag-length-value items within the field's size, each value read within its length by the kind
  -- its tag chooses (FieldDecoder+TLV).
  function payload_single.tlv(p, s, kind, t, off, stop, tree, scope, problems)
    local size = sized(s, kind, off, stop, scope)
    local list_end, n = off + size, 0
    local sub = tree:add(p.fields[kind.f], t(off, size))
    local function num(w, be)
      if off + w > list_end then short(s.n, w, off, list_end) end
      local r = t(off, w)
      off = off + w
      return be and r:uint() or r:le_uint()
    end
    while off < list_end and n < REPEAT_LIMIT do
      local from = off
      local tag = num(kind.tw, kind.tbe)
      local len = num(kind.lw, kind.lbe)
      if off + len > list_end then short(s.n, len, off, list_end) end
      local item = sub:add(t(from, off + len - from), "tag: " .. (kind.te and kind.te[tag] or tag))
      scope[HELD_BITS] = nil -- a value starts at a byte, bit fields included
      single(p, s, kind.cases[tag] or kind.fb, t, off, off + len, item, scope, problems)
      off, n = off + len, n + 1
    end
    return list_end
  end

  -- A str padded at its end (pad-right): shown without its padding.
  function unpadded(raw, pad)
    local last = #raw
    while last > 0 and raw:byte(last) == pad do last = last - 1 end
    return raw:sub(1, last)
  end

  function walk(p, list, t, off, stop, tree, scope, problems)
    for _, s in ipairs(list) do
      if s.r then
        local count = s.r == "eos" and REPEAT_LIMIT or (type(s.r) == "number" and s.r or (scope[s.r] or 0))
        local n = 0
        while n < math.min(count, REPEAT_LIMIT) and not (s.r == "eos" and off >= stop) do
          local before = off
          off = single(p, s, s, t, off, stop, tree, scope, problems)
          n = n + 1
          if s.r == "eos" and off == before then break end
        end
      else
        off = single(p, s, s, t, off, stop, tree, scope, problems)
      end
    end
    return off
  end

  -- A tree that keeps nothing: fields walked only for their values (a pairing token).
  local null_tree = setmetatable({}, { __index = function(self) return function() return self end end })

  -- The value at `path` inside a protobuf's bytes: a number, or bytes (a nested message).
  local function pb_at(raw, path, i)
    local found
    for _, r in ipairs((pb_records(raw))) do
      if r.n == tonumber(path[i]) then
        if found then return nil end -- a repeated field: a list, no token
        found = r
      end
    end
    if not found then return nil end
    local v = found.v
    if found.wt ~= 0 then
      local sub = raw:sub(found.at, found.at + found.len - 1)
      if found.wt == 2 then v = sub else
        v = 0
        for k = found.len, 1, -1 do v = v * 256 + sub:byte(k) end
      end
    end
    if i == #path then return v end
    return type(v) == "string" and pb_at(v, path, i + 1) or nil
  end

  -- The token a message carries at the pairing rule's path (`match: field` or `echo`), as btlens
  -- reads it: its fields walked as far as they go.
  function token_of(p, dir, command, payload)
    local path, spec = p.c.pairing.path, p.c.specs[dir][command]
    if not spec or #payload == 0 then return nil end
    local scope = {}
    pcall(walk, p, spec, ByteArray.new(payload, true):tvb("token"), 0, #payload, null_tree, scope, {})
    local v = scope
    for i, name in ipairs(path) do
      if type(v) ~= "table" then return nil end
      if v.pb then return pb_at(v.pb, path, i) end
      v = i < #path and v[name .. "."] or v[name]
    end
    return v
  end

  local function say(p, item, id, text)
    item:add_proto_expert_info(p.experts[id], id .. ": " .. text)
  end

  local function show_frame(p, fr, dir, tree, pinfo)
    local c = p.c
    local raw, trailer = fr.raw, fr.trailer or c.trailer
    local command = c.command and int_of(raw, c.command) or 0
    local sequence = c.seq_bits and int_of(raw, c.seq_bits) or c.sequence and raw:byte(c.sequence + 1)
    local payload_start, payload_end = c.hlen, #raw - trailer - #c.endb
    local checksum, expected = fr.checksum, fr.expected
    if not fr.joined and c.checksum and trailer > 0 then
      checksum = int_at(raw, payload_end, c.checksum.w, c.checksum.be)
      expected = compute(c.checksum, raw, covered(c, c.checksum, payload_end))
    end
    local t = ByteArray.new(raw, true):tvb(c.title .. " frame")
    local name = c.names[dir][command]
    local sub = tree:add(p.proto, t())
    sub:append_text(": " .. (name or hex(command)) .. (sequence and (" seq " .. sequence) or ""))
    local function field(key, o, w)
      if o then return sub:add(p.fields[key], t(o, w or 1)) end
    end
    field("version", c.version)
    if not c.command then
      -- A framing with no command field: every frame is command 0, as btlens says it.
      sub:add(p.fields.command, 0):set_generated()
    elseif c.command.m then sub:add(p.fields.command, t(c.command.o, c.command.w), command)
    elseif c.command.be then sub:add(p.fields.command, t(c.command.o, c.command.w))
    else sub:add_le(p.fields.command, t(c.command.o, c.command.w)) end
    if name then sub:add(p.fields.command_name, name):set_generated() end
    field("sequence", c.sequence)
    if c.seq_bits then sub:add(p.fields.sequence, t(c.seq_bits.o, c.seq_bits.w), sequence) end
    local flags = field("flags", c.flags)
    if c.flags_bits then
      flags = sub:add(p.fields.flags, t(c.flags_bits.o, c.flags_bits.w), int_of(raw, c.flags_bits))
    end
    if flags then
      for _, b in ipairs(c.flag_bits) do
        if c.flags then flags:add(p.fields["flags." .. b[3]], t(c.flags, 1))
        else flags:add(p.fields["flags." .. b[3]], t(c.flags_bits.o, c.flags_bits.w), int_of(raw, c.flags_bits)) end
      end
    end
    if c.fidx then field("fragment_index", c.fidx) end
    if c.fcnt then field("fragment_count", c.fcnt) end
    if c.length then
      if c.length.m then sub:add(p.fields.length, t(c.length.o, c.length.w), int_of(raw, c.length))
      elseif c.length.be then sub:add(p.fields.length, t(c.length.o, c.length.w))
      else sub:add_le(p.fields.length, t(c.length.o, c.length.w)) end
    end
    local payload, n = t, 0
    if fr.joined then
      if #fr.joined > 0 then payload = ByteArray.new(fr.joined, true):tvb(c.title .. " message") end
      n = #fr.joined
    else
      n = payload_end - payload_start
      if n > 0 then payload = t(payload_start, n):tvb() end
    end
    local spec = c.specs[dir][command]
    local problems = {}
    local flags = c.flags and raw:byte(c.flags + 1)
    if c.encrypted[dir][command] or c.eflag and flags and bit.band(flags, c.eflag) == c.eflag then
      -- An encrypted payload: its bytes, never its fields.
      spec = nil
      if n > 0 then sub:add(p.fields.encrypted, payload(0, n)) end
      n = 0
    end
    if spec then
      local ok, result = pcall(walk, p, spec, payload, 0, n, sub, {}, problems)
      if not ok then
        if type(result) == "table" then
          say(p, sub, result.id, (name or hex(command)) .. ": " .. result.text)
        else
          say(p, sub, "a5.payload.short", tostring(result))
        end
      elseif #problems == 0 and result < n then
        say(p, sub, "a5.payload.extra", (name or hex(command)) .. ": " .. (n - result) ..
          " byte" .. (n - result == 1 and "" or "s") .. " after the last field (payload offset " .. result .. ")")
      end
      for _, prob in ipairs(problems) do say(p, prob.item, prob.id, (name or hex(command)) .. ": " .. prob.text) end
    elseif n > 0 then
      sub:add(p.fields.payload, payload(0, n))
    end
    if checksum then
      local ck
      if fr.joined then
        -- A joined message's checksum is in its last frame, not in the first frame shown here.
        ck = sub:add(p.fields.checksum, checksum):set_generated()
      else
        ck = c.checksum.be and sub:add(p.fields.checksum, t(payload_end, c.checksum.w))
          or sub:add_le(p.fields.checksum, t(payload_end, c.checksum.w))
      end
      if expected and expected ~= checksum then ck:append_text(" [expected " .. hex(expected, 2 * c.checksum.w) .. "]") end
    end
    if fr.packets then
      local list = {}
      for _, k in ipairs(fr.packets) do list[#list + 1] = tostring(k) end
      sub:add(p.fields.packets, table.concat(list, ", ")):set_generated()
    end
    if fr.response_to then
      sub:add(p.fields.response_to, fr.response_to):set_generated()
      sub:add(p.fields.latency, fr.latency):set_generated()
    end
    if fr.response_in then sub:add(p.fields.response_in, fr.response_in):set_generated() end
    for _, d in ipairs(fr.diags or {}) do say(p, sub, d.id, d.text) end
    pinfo.cols.protocol = c.short
    pinfo.cols.info:append(" " .. (name or hex(command)) .. (sequence and (" seq " .. sequence) or ""))
  end

  -- Whether a whole value holds its event byte (`head`: 1) and checksum (ValueMessage); if not, says so.
  local function value_checksum(p, ck, tvb, head, tree)
    if tvb:len() >= head + ck.w then return true end
    say(p, tree:add(p.proto, tvb()), "a5.payload.short", (tvb:len() == 0 and "an empty value" or "a value of " ..
      tvb:len() .. " bytes") .. " where " .. (head > 0 and "an event byte and " or "") .. "a " .. ck.w ..
      "-byte checksum were expected")
    return false
  end

  -- A whole value's checksum, its last bytes, over the value before it or the payload after the event byte.
  local function show_value_checksum(p, m, sub)
    local ck, raw = m.ck, m.whole:raw()
    local stop = #raw - ck.w
    local got = int_at(raw, stop, ck.w, ck.be)
    local want = compute(ck, raw, ck.covers == "payload" and (m.command and 2 or 1) or 1, stop)
    local item = ck.be and sub:add(p.fields.checksum, m.whole(stop, ck.w))
      or sub:add_le(p.fields.checksum, m.whole(stop, ck.w))
    if got ~= want then
      local d = 2 * ck.w
      item:append_text(" [expected " .. hex(want, d) .. "]")
      say(p, item, "a5.checksum.bad", (m.command and ("command " .. hex(m.command)) or "value") .. ": checksum " .. hex(got, d) ..
        ", expected " .. hex(want, d))
    end
  end

  -- A message that is a whole ATT value (`framing: value`, or `event-byte`: its first byte says which).
  local function show_message(p, m, tree, pinfo)
    local sub = tree:add(p.proto, m.whole())
    sub:append_text(": " .. m.name)
    if m.command then sub:add(p.fields.command, m.whole(0, 1)) end
    -- A command the definition does not list is shown by its number, and has no name, as in btlens.
    if not m.unnamed then sub:add(p.fields.command_name, m.name):set_generated() end
    local kept = m.kept or {}
    if kept.response_to then
      sub:add(p.fields.response_to, kept.response_to):set_generated()
      sub:add(p.fields.latency, kept.latency):set_generated()
    end
    if kept.response_in then sub:add(p.fields.response_in, kept.response_in):set_generated() end
    for _, d in ipairs(kept.diags or {}) do say(p, sub, d.id, d.text) end
    if m.ck then show_value_checksum(p, m, sub) end
    local problems = {}
    if m.encrypted and m.tvb:len() > 0 then sub:add(p.fields.encrypted, m.tvb()) end
    if not m.spec or m.encrypted then
      pinfo.cols.info:append(" " .. m.name)
      return
    end
    local ok, result = pcall(walk, p, m.spec, m.tvb, 0, m.tvb:len(), sub, {}, problems)
    if not ok then
      say(p, sub, type(result) == "table" and result.id or "a5.payload.short",
        m.name .. ": " .. (type(result) == "table" and result.text or tostring(result)))
    elseif #problems == 0 and result < m.tvb:len() then
      say(p, sub, "a5.payload.extra", m.name .. ": " .. (m.tvb:len() - result) .. " bytes after the last field")
    end
    for _, prob in ipairs(problems) do say(p, prob.item, prob.id, m.name .. ": " .. prob.text) end
    pinfo.cols.protocol = p.c.short
    pinfo.cols.info:append(" " .. m.name)
  end

  -- Where a value came from: the stream it belongs to and the scope its requests pair in.
  local function place(pinfo, chandle, private)
    local dir = pinfo.p2p_dir == 1 and 1 or 0
    local conn = tostring(chandle or "?")
    if private then
      return private, conn, dir, pinfo.private["btlens_scope"] or private, tonumber(pinfo.private["btlens_part"]) or 1
    end
    local handle = value(f_att_handle)
    if handle then return "att/" .. conn .. "/" .. handle .. "/" .. dir, conn, dir, "att/" .. conn, 1 end
    local dlci = value(f_dlci)
    return "rfcomm/" .. conn .. "/" .. tostring(dlci) .. "/" .. dir, conn, dir, "rfcomm/" .. conn .. "/" .. tostring(dlci), 1
  end

  local post = Proto("btlens", "btlens")
  local e_blind = ProtoExpert.new("btlens.first_pass", "No fields on the first pass", expert.group.UNDECODED, expert.severity.WARN)
  post.experts = { e_blind }

  -- Diagnostics said in this packet that belong to no frame shown here (resyncs, truncated frames,
  -- unanswered requests), under the protocol's own item, once per packet.
  -- Diagnostics of the packet not shown yet in this dissection: notes are said in the
  -- postdissector too, after the dissector was called (a packet cut short).
  local function show_notes(p, tvb, pinfo, tree)
    if not tree then return end
    local key = "btlens_noted_" .. p.c.id
    local done, i, sub = tonumber(pinfo.private[key]) or 0, 0, nil
    for _, n in ipairs(notes[pinfo.number] or {}) do
      if n.p == p then
        i = i + 1
        if i > done then
          sub = sub or tree:add(p.proto):append_text(": diagnostics")
          say(p, sub, n.id, n.text)
        end
      end
    end
    pinfo.private[key] = tostring(math.max(i, done))
  end

  -- How many of the packet's notes are the protocol's.
  local function notes_of(p, number)
    local i = 0
    for _, n in ipairs(notes[number] or {}) do if n.p == p then i = i + 1 end end
    return i
  end

  local function dissect(p, tvb, pinfo, tree)
    if pinfo.visited then finish() end
    local private = pinfo.private
    if private["btlens_notes_only"] == p.c.id then
      -- Called by the postdissector: a long write's frames, and the packet's notes.
      local here = shown[pinfo.number] and shown[pinfo.number][p.c.id .. "#lw"]
      for _, fr in ipairs(here or {}) do show_frame(p, fr, here.dir, tree, pinfo) end
      show_notes(p, tvb, pinfo, tree)
      return 0
    end
    -- tshark -2 builds no tree on its first pass unless it filters (-R, -Y): no field can be read,
    -- and streams cannot be told apart. Say so rather than join them.
    local chandle, from_ea = value(f_chandle), private["btlens_stream"]
    if not pinfo.visited and chandle == nil and not from_ea then blind[pinfo.number] = true end
    if blind[pinfo.number] then
      if tree then
        tree:add(p.proto, tvb()):add_proto_expert_info(e_blind, "btlens: Wireshark gave this plugin no fields on " ..
          "its first pass; with tshark, run one pass, or -2 with a read filter (-2 -R frame)")
      end
      return tvb:len()
    end
    if not on_devices(p, pinfo, chandle) then return 0 end
    local key, conn, dir, scope, part = place(pinfo, chandle, from_ea)
    local slot = p.c.id .. "#" .. part
    -- Wireshark may hand one value over twice (Decode As on a handle bound by UUID too).
    if pinfo.private["btlens_" .. slot] then return tvb:len() end
    pinfo.private["btlens_" .. slot] = "1"
    -- EA data may first come on a later pass: the iAP2 dissector works its packets out there
    -- when the first pass had no fields.
    local ea_key = from_ea and pinfo.number .. slot
    if not pinfo.visited or (ea_key and not ea_done[ea_key]) then
      if ea_key then ea_done[ea_key] = true end
      -- A value the capture cut short is not framed (btlens drops it; the postdissector says so).
      if pinfo.caplen >= pinfo.len or from_ea then
        local s = stream(p.c.id .. "/" .. key, conn, p, dir)
        s.pair_key = p.c.id .. "/" .. scope
        pairs_of[s.pair_key] = pairs_of[s.pair_key] or { conn = conn, p = p }
        local frames = push(s, tvb:raw(), pinfo.number, pinfo.abs_ts)
        -- Only packets that show something keep anything.
        if frames[1] then
          frames.dir = dir
          shown[pinfo.number] = shown[pinfo.number] or {}
          shown[pinfo.number][slot] = frames
        end
      end
    end
    local here = shown[pinfo.number] and shown[pinfo.number][slot]
    if here and tree then
      for _, fr in ipairs(here) do show_frame(p, fr, here.dir, tree, pinfo) end
    end
    show_notes(p, tvb, pinfo, tree)
    return tvb:len()
  end

  -- Wireshark hands a handle's Read Request (no value) to the handle's Decode As too: btlens reads
  -- values only.
  local function no_value()
    local op = value(f_att_opcode)
    return op == 0x0a or op == 0x0c
  end

  local function dissect_value(p, message, tvb, pinfo, tree, ck)
    if no_value() then return 0 end
    if not message then
      -- A whole value no binding names (Decode As on a `framing: value` definition): its bytes.
      if tree then tree:add(p.proto, tvb()):add(p.fields.payload, tvb()) end
      return tvb:len()
    end
    local spec = p.c.messages[message]
    if not spec or not on_devices(p, pinfo, value(f_chandle)) then return 0 end
    if ck and not value_checksum(p, ck, tvb, 0, tree) then return tvb:len() end
    local m = { name = message, spec = spec, tvb = tvb, whole = tvb, ck = ck, encrypted = p.c.encrypted.named[message] }
    if ck then m.tvb = tvb:len() > ck.w and tvb(0, tvb:len() - ck.w):tvb() or ByteArray.new():tvb("empty") end
    show_message(p, m, tree, pinfo)
    return tvb:len()
  end

  local function dissect_event_byte(p, tvb, pinfo, tree, ck)
    if no_value() then return 0 end
    if tvb:len() < 1 or not on_devices(p, pinfo, value(f_chandle)) then return 0 end
    if ck and not value_checksum(p, ck, tvb, 1, tree) then return tvb:len() end
    local dir = pinfo.p2p_dir == 1 and 1 or 0
    local command = tvb(0, 1):uint()
    local name = p.c.names[dir][command]
    local stop = tvb:len() - (ck and ck.w or 0)
    local payload = stop > 1 and tvb(1, stop - 1):tvb() or ByteArray.new():tvb("empty")
    local key = pinfo.number .. "/" .. p.c.id
    if not pinfo.visited and p.c.pairing then
      -- Paired on the first pass, in the connection's context as the frames of its streams are.
      local conn = tostring(value(f_chandle) or "?")
      local s = { p = p, dir = dir, pair_key = p.c.id .. "/att/" .. conn }
      pairs_of[s.pair_key] = pairs_of[s.pair_key] or { conn = conn, p = p }
      said[key] = {}
      pair(s, { command = command, payload = stop > 1 and tvb(1, stop - 1):raw() or "" }, said[key], pinfo.number,
        pinfo.abs_ts)
    end
    show_message(p, { name = name or hex(command), spec = p.c.specs[dir][command], tvb = payload, whole = tvb,
      command = command, kept = said[key], encrypted = p.c.encrypted[dir][command], unnamed = name == nil, ck = ck },
      tree, pinfo)
    return tvb:len()
  end

  -- A long write: Prepare Write values queued by offset, fed to their stream on Execute Write.
  local function long_write(op, pinfo)
    local conn = tostring(value(f_chandle) or "?")
    if op == 0x16 then
      local uuid = value(f_att_uuid16)
      local p = uuid and choose(string.format("%04x", uuid), pinfo, value(f_chandle), true)
      p = p and p.p
      local handle = value(f_att_handle)
      if p and handle then
        queued[conn] = queued[conn] or {}
        queued[conn][handle] = queued[conn][handle] or { p = p }
        queued[conn][handle][value(f_att_offset)] = { bytes = f_att_value().range:raw(), number = pinfo.number }
      end
      return
    end
    shown[pinfo.number] = shown[pinfo.number] or {}
    local handles = {}
    for h in pairs(queued[conn] or {}) do handles[#handles + 1] = h end
    table.sort(handles)
    for _, h in ipairs(handles) do
      local parts = queued[conn][h]
      if value(f_att_flags) == 1 then
        local offsets = {}
        for o in pairs(parts) do if type(o) == "number" then offsets[#offsets + 1] = o end end
        table.sort(offsets)
        local bytes, from = "", {}
        for _, o in ipairs(offsets) do
          bytes = bytes .. parts[o].bytes
          from[#from + 1] = { n = parts[o].number, len = #parts[o].bytes }
        end
        local p = parts.p
        local s = stream(p.c.id .. "/att/" .. conn .. "/" .. h .. "/0", conn, p, 0)
        s.pair_key = p.c.id .. "/att/" .. conn
        pairs_of[s.pair_key] = pairs_of[s.pair_key] or { conn = conn, p = p }
        local frames = push(s, bytes, pinfo.number, pinfo.abs_ts, from)
        frames.dir = 0
        shown[pinfo.number][p.c.id .. "#lw"] = frames
      end
    end
    queued[conn] = nil
  end

  -- A packet the capture cut short: the stream it belonged to lost bytes.
  local function cut_short(pinfo)
    local handle = value(f_att_handle)
    if not handle then return end
    local conn = tostring(value(f_chandle) or "?")
    local dir = pinfo.p2p_dir == 1 and 1 or 0
    for _, p in ipairs(protos) do
      local s = streams[p.c.id .. "/att/" .. conn .. "/" .. handle .. "/" .. dir]
      if s then
        leftovers(s, "a record the capture cut short", pinfo.number)
        s.insync, s.skipped, s.joining, s.after_end, s.pre_done = false, 0, nil, false, true
      end
    end
  end

  -- Long writes, capture holes and disconnections, which no dissector table hands to a protocol,
  -- and the diagnostics that belong to no frame.
  function post.init() reset() end
  function post.dissector(tvb, pinfo, tree)
    if pinfo.visited then finish() end
    if not pinfo.visited then
      last_number = math.max(last_number, pinfo.number)
      -- Most packets are ACL data: one field read tells events from them.
      local code = value(f_evt_code)
      if code then
        local name, address = code == 0x3e and value(f_adv_name), address_of(f_adv_addr)
        if name and address then advertised[address] = name end
        local handle = (code == 0x03 or code == 0x3e or code == 0x05) and value(f_evt_handle)
        if handle and code ~= 0x05 and address then connected[tostring(handle)] = address end
        if handle and code == 0x05 then end_connection(tostring(handle), "disconnection", pinfo.number) end
      else
        local op = value(f_att_opcode)
        if op == 0x16 or op == 0x18 then long_write(op, pinfo) end
        if op and pinfo.caplen < pinfo.len then cut_short(pinfo) end
      end
    end
    if tree then
      -- Long writes and notes in packets the protocol's dissector was not called for: it is
      -- called now, so that Wireshark counts them as the protocol's.
      for _, p in ipairs(protos) do
        local here = shown[pinfo.number] or {}
        local unshown = notes_of(p, pinfo.number) > (tonumber(pinfo.private["btlens_noted_" .. p.c.id]) or 0)
        if here[p.c.id .. "#lw"] or unshown then
          pinfo.private["btlens_notes_only"] = p.c.id
          Dissector.get(p.c.id):call(tvb, pinfo, tree)
          pinfo.private["btlens_notes_only"] = ""
        end
      end
    end
  end
  register_postdissector(post)

  -- A characteristic bound by several definitions (in one plugin or several): as in btlens, one
  -- bound on the vendor's devices wins there, one bound for every device elsewhere.
  function choose(uuid, pinfo, chandle, framed)
    local fallback
    for _, b in ipairs(bound[uuid] or {}) do
      if not framed or b.framed then
        if b.p.c.devices then
          if on_devices(b.p, pinfo, chandle) then return b end
        elseif not fallback then
          fallback = b
        end
      end
    end
    return fallback
  end

  -- A 16- or 32-bit UUID as Wireshark's table knows it: also in the Bluetooth Base UUID's 128-bit
  -- form (Core Vol 3 Part B §2.5.1), which a characteristic's declaration may give instead.
  local function uuid_keys(u)
    if #u == 4 then return { u, "0000" .. u .. "-0000-1000-8000-00805f9b34fb" } end
    if #u == 8 then return { u, u .. "-0000-1000-8000-00805f9b34fb" } end
    return { u }
  end

  -- Wireshark's table takes one dissector per UUID: a UUID's is a dispatcher, made once.
  function bind(uuid, p, dissect_with, framed)
    if not bound[uuid] then
      bound[uuid] = {}
      local d = Proto("btlens_" .. uuid:gsub("-", "_"), "btlens (" .. uuid .. ")")
      function d.dissector(tvb, pinfo, tree)
        local b = choose(uuid, pinfo, value(f_chandle))
        return b and b.dissect(tvb, pinfo, tree) or 0
      end
      for _, key in ipairs(uuid_keys(uuid)) do DissectorTable.get("bluetooth.uuid"):add(key, d) end
    end
    table.insert(bound[uuid], { p = p, dissect = dissect_with, framed = framed })
  end

  -- Makes one protocol from a definition's description (generated below).
  function btlens.register(c)
    local p = { c = c, proto = Proto(c.id, c.title) }
    c.magic_char = c.magic[1] and string.char(c.magic[1])
    local fields = {
      command = c.command and (c.command.w == 2 or c.command.m) and ProtoField.uint16(c.id .. ".command", "Command", base.HEX)
        or ProtoField.uint8(c.id .. ".command", "Command", base.HEX),
      command_name = ProtoField.string(c.id .. ".command_name", "Command name"),
      version = ProtoField.uint8(c.id .. ".version", "Version"),
      sequence = ProtoField.uint8(c.id .. ".sequence", "Sequence"),
      flags = ProtoField.uint8(c.id .. ".flags", "Flags", base.HEX),
      fragment_index = ProtoField.uint8(c.id .. ".fragment_index", "Fragment index"),
      fragment_count = ProtoField.uint8(c.id .. ".fragment_count", "Fragment count"),
      length = c.length and c.length.w == 4 and ProtoField.uint32(c.id .. ".length", "Length")
        or c.length and c.length.w == 2 and ProtoField.uint16(c.id .. ".length", "Length")
        or ProtoField.uint8(c.id .. ".length", "Length"),
      checksum = c.vw and c.vw > 1 and ProtoField.uint32(c.id .. ".checksum", "Checksum", base.HEX)
        or c.checksum and c.checksum.w == 4 and ProtoField.uint32(c.id .. ".checksum", "Checksum", base.HEX)
        or c.checksum and c.checksum.w == 2 and ProtoField.uint16(c.id .. ".checksum", "Checksum", base.HEX)
        or ProtoField.uint8(c.id .. ".checksum", "Checksum", base.HEX),
      payload = ProtoField.bytes(c.id .. ".payload", "Payload"),
      packets = ProtoField.string(c.id .. ".packets", "Reassembled from packets"),
      response_to = ProtoField.framenum(c.id .. ".response_to", "Response to"),
      response_in = ProtoField.framenum(c.id .. ".response_in", "Response in"),
      latency = ProtoField.double(c.id .. ".latency_ms", "Latency (ms)"),
      encrypted = ProtoField.bytes(c.id .. ".encrypted_payload", "Encrypted payload"),
    }
    for _, b in ipairs(c.flag_bits) do
      -- b[3]: the name as a field abbreviation may hold it.
      fields["flags." .. b[3]] = ProtoField.bool(c.id .. ".flags." .. b[3], b[2], 8, nil, b[1])
    end
    for key, d in pairs(c.fields) do
      local abbrev, name = c.id .. "." .. key, d.n
      if d.t == "int" then
        local bits = d.w > 4 and 64 or d.w * 8
        local make = ProtoField[(d.s and "int" or "uint") .. bits]
        fields[key] = make(abbrev, name, d.hex and base.HEX or base.DEC, d.enum)
      elseif d.t == "bool" then
        fields[key] = ProtoField.bool(abbrev, name, d.bits, nil, d.mask)
      elseif d.t == "float" then fields[key] = d.w == 8 and ProtoField.double(abbrev, name) or ProtoField.float(abbrev, name)
      elseif d.t == "string" then fields[key] = ProtoField.string(abbrev, name)
      elseif d.t == "group" then fields[key] = ProtoField.none(abbrev, name)
      else fields[key] = ProtoField.bytes(abbrev, name) end
    end
    local list = {}
    for _, f in pairs(fields) do list[#list + 1] = f end
    p.proto.fields = list
    p.fields = fields
    p.experts = {}
    local experts = {}
    for id, e in pairs(c.experts) do
      p.experts[id] = ProtoExpert.new(c.id .. "." .. id, e[1], expert.group[e[2]], expert.severity[e[3]])
      experts[#experts + 1] = p.experts[id]
    end
    p.proto.experts = experts
    function p.proto.dissector(tvb, pinfo, tree)
      -- Decode As: a definition of whole values reads them so, not as frames.
      if c.framing ~= "frames" and pinfo.private["btlens_notes_only"] ~= c.id then
        local ck = c.framing_checksum
        if c.framing == "event-byte" then return dissect_event_byte(p, tvb, pinfo, tree, ck) end
        return dissect_value(p, nil, tvb, pinfo, tree, ck)
      end
      return dissect(p, tvb, pinfo, tree)
    end
    protos[#protos + 1] = p
    local uuids = DissectorTable.get("bluetooth.uuid")
    for _, u in ipairs(c.uuids) do
      bind(u, p, function(tvb, pinfo, tree) return dissect(p, tvb, pinfo, tree) end, true)
    end
    for _, u in ipairs(c.services) do
      for _, key in ipairs(uuid_keys(u)) do uuids:add(key, p.proto) end
    end
    DissectorTable.get("btatt.handle"):add_for_decode_as(p.proto)
    DissectorTable.get("btrfcomm.dlci"):add_for_decode_as(p.proto)
    local ea = DissectorTable.get("iap2.ea_protocol")
    for _, name in ipairs(c.ea) do if ea then ea:add(name, p.proto) end end
    for _, uuid in ipairs(c.event_bytes) do
      local ck = c.value_checksums[uuid]
      bind(uuid, p, function(tvb, pinfo, tree) return dissect_event_byte(p, tvb, pinfo, tree, ck) end)
    end
    for uuid, message in pairs(c.values) do
      local ck = c.value_checksums[uuid]
      bind(uuid, p, function(tvb, pinfo, tree) return dissect_value(p, message, tvb, pinfo, tree, ck) end)
      -- Decode As by message, as btlens' --decode-as att:HANDLE=NAME/MESSAGE: ID_MESSAGE in lower case.
      local by_message = Proto(c.id .. "_" .. message:lower():gsub("[^%w]", "_"), c.title .. ": " .. message)
      function by_message.dissector(tvb, pinfo, tree) return dissect_value(p, message, tvb, pinfo, tree, ck) end
      DissectorTable.get("btatt.handle"):add_for_decode_as(by_message)
    end
  end
  _G.btlens_runtime = btlens
end
