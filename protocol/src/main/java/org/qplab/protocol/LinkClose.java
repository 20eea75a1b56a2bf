package org.qplab.protocol;

/**
 * Why the controller closed an agent's link: the WebSocket close code (in 4000-4999, which RFC 6455 leaves to
 * applications; the last three digits echo the HTTP status of the same meaning), with a reason text that says more.
 * The agent acts on the code ({@code ControllerLink}); it never deletes its spool for any of them.
 */
public enum LinkClose {
    /** The first message was not a valid hello (not a hello, or a bad agent id). Retrying cannot help. */
    BAD_HELLO(4400),
    /** The token is not this agent id's: wrong, or never issued for it, or revoked. Another token may do. */
    TOKEN_REFUSED(4401),
    /** The agent sent a frame, run end, pair step or heartbeat about a run not assigned to it. */
    NOT_ITS_RUN(4403),
    /** Another link is registered under this agent id now, with another token. Later may do. */
    ID_LIVE(4409),
    /** An admin revoked or replaced the token this link registered with. Another token may do. */
    TOKEN_REVOKED(4410),
    /** The enrolment secret, for an id that has or had a token of its own: only that id's own token registers it. */
    ENROLMENT_CLOSED(4423),
    /** Frames of a layout this controller cannot read (an agent of another release). */
    FRAME_LAYOUT(4426),
    /** Too many failed hellos from the agent's address lately; the reason names the seconds to wait. */
    THROTTLED(4429);

    private final int code;

    LinkClose(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The close of this code, or null for any other (a normal close, a server error). */
    public static LinkClose of(int code) {
        for (LinkClose close : values()) {
            if (close.code == code) {
                return close;
            }
        }
        return null;
    }
}
