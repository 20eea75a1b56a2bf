package org.qplab.controller.experiment;

import java.util.List;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Violation;

/** A matrix with at least one violation; all of them are listed, nothing was stored. */
public class InvalidMatrixException extends BadRequest {

    public InvalidMatrixException(List<Violation> violations) {
        super("invalid matrix", violations);
    }
}
