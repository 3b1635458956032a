#if Server
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1

    /// One server-sent event, as the EventSource specification parses it.
    struct ServerSentEvent: Equatable {
        var id: String?
        var event = "message"
        var data = ""
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
        static func == (a: Self, b: Self) -> Bool { a.id == b.id && a.event == b.event && a.data == b.data }
    }

    /// Parses `text/event-stream` bytes per the HTML standard's EventSource rules: lines end in
    /// LF, CR or CRLF; `:` starts a comment; `field: value` (one leading space dropped);
    /// `data` lines are joined by LF; a blank line dispatches an event (not when its data is
    /// empty). (mattt/EventSource 1.1.1, which the issue names, does not build on Linux.)
    struct EventStreamParser {
        private var line: [UInt8] = []
        private var lastWasCR = false
        private var pending = ServerSentEvent()
        private var hasData = false
        private(set) var comments: [String] = []
        /// The last event id set so far (by an event or by an event of an `id:` alone).
        var lastEventID: String? { pending.id }

        /// Feeds bytes; returns the events they complete.
        mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
            var events: [ServerSentEvent] = []
            for byte in bytes {
                if lastWasCR, byte == 0x0A {
                    lastWasCR = false
                    continue
                }
                lastWasCR = byte == 0x0D
                if byte == 0x0A || byte == 0x0D {
                    if let event = endLine() { events.append(event) }
                } else {
                    line.append(byte)
                }
            }
            return events
        }

        private mutating func endLine() -> ServerSentEvent? {
            defer { line.removeAll() }
            let text = String(decoding: line, as: UTF8.self)
            if text.isEmpty {
                defer {
                    pending = ServerSentEvent(id: pending.id)
                    hasData = false
                }
                guard hasData else { return nil }
                return pending
            }
            if text.hasPrefix(":") {
                comments.append(String(text.dropFirst()))
                return nil
            }
            let name: Substring
            var value: Substring
            if let colon = text.firstIndex(of: ":") {
                name = text[..<colon]
                value = text[text.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
            } else {
                name = Substring(text)
                value = ""
            }
            switch name {
            case "event": pending.event = String(value)
            case "data":
                pending.data += (hasData ? "\n" : "") + value
                hasData = true
            case "id": pending.id = String(value)
            default: break
            }
            return nil
        }
    }

    /// A live stream read event by event.
    final class EventStream: @unchecked Sendable {
        // @unchecked: used by one test task at a time (its iterator is not shared).
        private var iterator: HTTPClientResponse.Body.AsyncIterator
        private var parser = EventStreamParser()
        private var ready: [ServerSentEvent] = []
        let status: Int
        let contentType: String?

        convenience init(_ served: ServedShelf, _ path: String, headers: [(String, String)] = []) async throws {
            try await self.init(client: served.client, url: served.base + path, headers: headers)
        }

        init(client: HTTPClient, url: String, headers: [(String, String)] = []) async throws {
            var request = HTTPClientRequest(url: url)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response = try await client.execute(request, timeout: .seconds(600))
            status = Int(response.status.code)
            contentType = response.headers.first(name: "Content-Type")
            iterator = response.body.makeAsyncIterator()
        }

        var comments: [String] { parser.comments }

        /// The next event, or nil when the stream ends.
        func next() async throws -> ServerSentEvent? {
            while ready.isEmpty {
                guard let buffer = try await iterator.next() else { return nil }
                ready += parser.feed(buffer.readableBytesView)
            }
            return ready.removeFirst()
        }

        /// Reads events until one satisfies `condition`; nil when the stream ends first.
        func next(where condition: (ServerSentEvent) -> Bool) async throws -> ServerSentEvent? {
            while let event = try await next() {
                if condition(event) { return event }
            }
            return nil
        }

        /// Reads until the stream has set a last event id, and returns it; nil when the stream
        /// ends first or `comments` comment lines arrive without one (keep-alives: the server
        /// sent no id before them).
        func lastEventID(withinComments comments: Int) async throws -> String? {
            while parser.lastEventID == nil, parser.comments.count < comments {
                guard let buffer = try await iterator.next() else { return nil }
                ready += parser.feed(buffer.readableBytesView)
            }
            return parser.lastEventID
        }

        /// Reads until at least `count` comment lines have arrived; false when the stream ends.
        func waitForComments(_ count: Int) async throws -> Bool {
            while parser.comments.count < count {
                guard let buffer = try await iterator.next() else { return false }
                ready += parser.feed(buffer.readableBytesView)
            }
            return true
        }
    }
#endif
