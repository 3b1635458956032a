#if Server
    internal import NIOCore

    #if canImport(Glibc)
        internal import Glibc
    #endif

    /// The send timeout (`ConnectionGuard`): a connection whose channel stays unwritable is
    /// closed once its client has taken nothing for `sendTimeout`, judged by the bytes its TCP
    /// acknowledged, not by how long the channel stayed unwritable. With Linux's socket buffers
    /// (megabytes on loopback) a client reading steadily at 80 KB/s kept a change stream
    /// unwritable for longer than the timeout, and was cut off in the middle of an event
    /// (hostile round 14).
    extension ConnectionGuard {
        /// The channel went unwritable: the stall is watched from the bytes acknowledged now.
        func stallBegan(_ context: ChannelHandlerContext) {
            stallStarting = true
            let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            Self.bytesAcknowledged(by: context.channel).whenComplete { result in
                let (this, context) = handler.value
                this.stallStarting = false
                guard context.channel.isActive, !context.channel.isWritable, this.stalled == nil else { return }
                this.watchStall(context, acknowledged: (try? result.get()) ?? nil, since: .now())
            }
        }

        /// Looks every quarter of `sendTimeout` whether the client acknowledged more than
        /// `acknowledged` bytes, last seen to move at `since`; closes the connection once nothing
        /// moved for `sendTimeout` (within a quarter of it), and stops looking once the channel is
        /// writable again. (A look once per `sendTimeout` that started over on any progress in
        /// the period closed a client that stopped reading up to twice the timeout later:
        /// hostile round 15.)
        private func watchStall(_ context: ChannelHandlerContext, acknowledged: UInt64?, since: NIODeadline) {
            let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let look = TimeAmount.nanoseconds(max(sendTimeout.nanoseconds / 4, 1))
            stalled = context.eventLoop.scheduleTask(in: look) {
                let (this, context) = handler.value
                this.stalled = nil
                guard context.channel.isActive, !context.channel.isWritable else { return }
                Self.bytesAcknowledged(by: context.channel).whenComplete { result in
                    let (this, context) = handler.value
                    guard context.channel.isActive, !context.channel.isWritable, this.stalled == nil else { return }
                    let now = (try? result.get()) ?? nil
                    if let now, let acknowledged, now > acknowledged {
                        this.watchStall(context, acknowledged: now, since: .now())
                    } else if NIODeadline.now() - since >= this.sendTimeout {
                        context.channel.close(promise: nil)
                    } else {
                        this.watchStall(context, acknowledged: acknowledged ?? now, since: since)
                    }
                }
            }
        }

        /// Linux's `struct tcp_info` as the kernel fills it (glibc's declaration ends before
        /// `tcpi_bytes_acked`, which has been there since Linux 4.1): 256 bytes, zeroed first, of
        /// which a kernel fills what it has.
        struct KernelTCPInfo: Sendable {
            var words:
                (
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
                )

            /// `tcpi_bytes_acked`: at byte 120 (after 8 bytes of states and flags, 24 `__u32`
            /// counters and the two `__u64` pacing rates); 0 from a kernel without it.
            var bytesAcknowledged: UInt64 { words.15 }
        }

        /// The bytes of the connection its peer acknowledged so far, or nil when the socket
        /// cannot tell (not TCP, or a kernel before 4.1).
        static func bytesAcknowledged(by channel: any Channel) -> EventLoopFuture<UInt64?> {
            #if os(Linux)
                guard let provider = channel as? any SocketOptionProvider else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                let info: EventLoopFuture<KernelTCPInfo> = provider.unsafeGetSocketOption(
                    level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_INFO)))
                return info.map { $0.bytesAcknowledged == 0 ? nil : $0.bytesAcknowledged }
                    .recover { _ in nil }
            #else
                return channel.eventLoop.makeSucceededFuture(nil)
            #endif
        }
    }
#endif
