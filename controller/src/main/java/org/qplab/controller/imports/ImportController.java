package org.qplab.controller.imports;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ValidText;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * POST /api/import/perftest[?name=NAME][&amp;file=NAME]: the body is perftest's text output (one run
 * of ib_send_bw, ib_write_bw, ib_read_bw or a _lat twin, -a included) or the file its --out_json
 * wrote: a body that is a JSON object, or is sent as application/json, is read as the latter. Answers
 * 201 with the new experiment's id, one finished run per message size, and a warning for each repair
 * of damage perftest is known to write; or 400 naming the line that failed (for a perftest run that
 * failed, quoting perftest's error lines), and nothing is stored.
 */
@RestController
@Tag(name = ApiTags.IMPORTS)
class ImportController {

    /** The experiment an import made. */
    record Imported(@Schema(description = "The new experiment's id.") long id,
                    @Schema(description = "Its name: the name parameter, else the tool and the file.") String name,
                    @Schema(description = "The perftest tool the output came from.", example = "ib_write_bw")
                    String tool,
                    @Schema(description = "Its runs: one per message size.") int runs,
                    @Schema(description = "What was repaired to read the file, each where it is ('line N') and "
                            + "what: damage some perftest versions write (e.g. closing braces after the end of "
                            + "an --out_json file), left out or put right with the values kept. Empty when the "
                            + "file needed none.") List<Violation> warnings) {}

    private static final int MAX_BYTES = 4 * 1024 * 1024;
    /** A binary file sent by mistake has invalid text on most lines: the first few say enough. */
    private static final int MAX_INVALID_LINES = 10;

    private final Jdbc jdbc;
    private final PerftestImport imports;

    ImportController(Jdbc jdbc, PerftestImport imports) {
        this.jdbc = jdbc;
        this.imports = imports;
    }

    @PostMapping("/api/import/perftest")
    @Operation(operationId = "importPerftest", summary = "Import perftest results",
            description = "Stores one perftest run (ib_send_bw, ib_write_bw, ib_read_bw or a _lat twin, -a "
                    + "included) as a finished experiment with one run per message size: parameters from perftest's "
                    + "header, its BW average and peak (converted to bytes per second), message rate, and for latency "
                    + "tests t_typical as the median and the 99 % percentile. The body is perftest's text output, or "
                    + "the file its --out_json wrote (a body that is a JSON object, or is sent as application/json, is "
                    + "read as that). Damage some perftest versions write into --out_json (closing braces after the "
                    + "end of the JSON) is repaired, the values kept, and the answer's warnings name each repair. "
                    + "A 400 names the line that failed; the output of a perftest run that failed is "
                    + "refused quoting perftest's own error lines. Nothing is stored on a 400. Needs an operator.",
            requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
                    description = "perftest's output, at most 4 MiB.", content = {
                    @Content(mediaType = "text/plain", schema = @Schema(type = "string")),
                    @Content(mediaType = "application/json", schema = @Schema(type = "object",
                            description = "The file perftest's --out_json wrote."))}))
    @ApiResponse(responseCode = "201", description = "Stored: the new experiment.", headers = @Header(
            name = "Location", description = "The experiment's URL: /api/experiments/{id}",
            schema = @Schema(type = "string")))
    Mono<ResponseEntity<Imported>> perftest(@RequestBody(required = false) byte[] body,
                                            @Parameter(description = "The experiment's name; default: the tool, the "
                                                    + "file and \"import\".")
                                            @RequestParam(required = false) String name,
                                            @Parameter(description = "The name of the file the output came from, kept "
                                                    + "with the experiment.")
                                            @RequestParam(required = false) String file,
                                            ServerHttpRequest request, java.security.Principal who) {
        MediaType type = request.getHeaders().getContentType();
        boolean sentAsJson = type != null && type.equalsTypeAndSubtype(MediaType.APPLICATION_JSON);
        if (body == null || body.length == 0) {
            return Mono.error(empty(sentAsJson));
        }
        if (body.length > MAX_BYTES) {
            return Mono.error(new BadRequest("invalid perftest output", List.of(new Violation("",
                    "the file has " + body.length + " bytes; perftest output of one run is far smaller (limit " + MAX_BYTES + ")"))));
        }
        String text = new String(body, StandardCharsets.UTF_8).replaceFirst("^\uFEFF", "");
        List<Violation> invalidText = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length && invalidText.size() < MAX_INVALID_LINES; i++) {
            ValidText.check("line " + (i + 1), lines[i], invalidText);
        }
        if (!invalidText.isEmpty()) {
            return Mono.error(new BadRequest("invalid perftest output", invalidText));
        }
        if (text.isBlank()) {
            return Mono.error(empty(sentAsJson));
        }
        boolean json = PerftestJson.looksLikeJson(text) || sentAsJson;
        PerftestOutput out;
        try {
            out = json ? PerftestJson.parse(text) : PerftestOutput.parse(text);
        } catch (PerftestFailure.Failed e) {
            return Mono.error(new BadRequest("invalid perftest output", e.errors().stream()
                    .map(error -> new Violation("line " + error.number(), PerftestFailure.quote(error))).toList()));
        } catch (PerftestOutput.Invalid e) {
            return Mono.error(new BadRequest("invalid perftest output", List.of(new Violation(
                    e.line() > 0 ? "line " + e.line() : "file", e.getMessage()))));
        }
        // a JSON string may spell a NUL as an escape; the header is what is stored of it
        out.header().forEach((key, value) -> {
            ValidText.check(ValidText.printable(key), key, invalidText);
            ValidText.check(ValidText.printable(key), value, invalidText);
        });
        if (!invalidText.isEmpty()) {
            return Mono.error(new BadRequest("invalid perftest output", invalidText));
        }
        String title = name != null && !name.isBlank() ? name.trim()
                : out.tool() + (file != null && !file.isBlank() ? " (" + file.trim() + ")" : "") + " import";
        PerftestOutput parsed = out;
        return jdbc.call(() -> imports.store(title, file, parsed, who.getName())).map(id -> ResponseEntity
                .created(URI.create("/api/experiments/" + id))
                .body(new Imported(id, title, parsed.tool(), parsed.rows().size(), parsed.repairs().stream()
                        .map(repair -> new Violation("line " + repair.line(), repair.message())).toList())));
    }

    /** A body with nothing in it (white space at most): what may have left it empty. */
    private static BadRequest empty(boolean sentAsJson) {
        return new BadRequest("invalid perftest output", List.of(new Violation("", sentAsJson
                ? "the request body is empty: " + PerftestJson.EMPTY_WHY
                : "the request body is empty: send perftest's output, e.g. curl --data-binary @send_bw.txt")));
    }
}
