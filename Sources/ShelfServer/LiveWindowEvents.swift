#if Server
    internal import NIOCore
    internal import ShelfReactive
    internal import ShelfStore

    extension ShelfAPI {
        /// What a live stream sends for a window: the window's event, or an `event: error` in its
        /// place (`isWindow` false: the window holds a value of the wrong type).
        struct WindowEvent: Sendable {
            let bytes: ByteBuffer
            let isWindow: Bool
        }

        /// The bytes of `window`'s event at `position`: its `id:` line (when it has a position),
        /// `event: window` and the data `{"count", "items", "seq"}`. Owners' emails are read here
        /// (once per owner, several at a time: `JSONShapes.ownerEmails`); the JSON is built and
        /// encoded on a thread of its own. A window holding a value another program stored with
        /// the wrong type
        /// (`Store.refuseMistypedItems`) is an `event: error` naming the row instead, as the
        /// list refuses it: one check per window, shared by the query's streams (`LiveWindowFanout`).
        func encodeWindowEvent(_ window: ItemWindow, at position: Int64?) async throws -> WindowEvent {
            do {
                try await store.refuseMistypedItems(window.items.map(\.id))
            } catch let error as StoreError {
                return WindowEvent(bytes: Self.errorEvent(error), isWindow: false)
            }
            let owners = try await JSONShapes.ownerEmails(of: window.items, store: store)
            let bytes = try await BlockingWork.run { cancellation in
                // `{"count":N,"items":[…],"seq":S}`, as `JSONValue.object(…).encoded()` writes it
                // (keys sorted), an item at a time so that a cancelled encoding stops between them.
                var bytes = Array(((position.map { "id: \($0)\n" } ?? "") + "event: window\ndata: ").utf8)
                bytes += Array("{\"count\":\(window.totalCount),\"items\":[".utf8)
                for (index, item) in window.items.enumerated() {
                    try cancellation.check()
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    JSONShapes.item(item, ownerEmail: owners[item.userID] ?? nil).append(to: &bytes)
                }
                bytes += Array("],\"seq\":\(position.map(String.init) ?? "null")}\n\n".utf8)
                return ByteBuffer(bytes: bytes)
            }
            return WindowEvent(bytes: bytes, isWindow: true)
        }
    }
#endif
