#if Server
    internal import NIOCore

    /// Counts the bytes a connection has read, before the HTTP decoder sees them: how
    /// `ConnectionGuard` tells a head that began and never ended (answered 408) from a
    /// connection that sent nothing (closed without a word) when the header deadline passes.
    /// The decoder keeps a partial head to itself, and passes nothing up until it is whole.
    ///
    /// Added by `ConnectionGuard` and read by it only, on the channel's event loop.
    final class InboundByteCount: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer

        /// The bytes read so far.
        private(set) var total = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            total += unwrapInboundIn(data).readableBytes
            context.fireChannelRead(data)
        }
    }
#endif
