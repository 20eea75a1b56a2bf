package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.BodyInserters;

/**
 * What a browser holds after logging in on /login: its cookies (the session, the CSRF token). Made the way a
 * browser makes it: the login page, then its form posted back with the page's CSRF token. {@code secure} names
 * the cookies that came with the Secure attribute (a browser sends them over HTTPS only).
 */
record BrowserSession(Map<String, String> cookies, Set<String> secure) {

    static BrowserSession logIn(WebTestClient anonymous, String name, String password) {
        Map<String, String> cookies = new HashMap<>();
        Set<String> secure = new HashSet<>();
        var page = anonymous.get().uri("/login").exchange().expectStatus().isOk().expectBody(String.class).returnResult();
        keep(page.getResponseCookies(), cookies, secure);
        assertThat(page.getResponseBody()).contains("id=\"login-form\"");
        assertThat(cookies.get("XSRF-TOKEN")).as("the login page's CSRF token (its script puts it in the form)").isNotBlank();
        var form = new LinkedMultiValueMap<String, String>();
        form.add("username", name);
        form.add("password", password);
        form.add("_csrf", cookies.get("XSRF-TOKEN"));
        var login = anonymous.post().uri("/login").cookies(c -> cookies.forEach(c::add))
                .contentType(MediaType.APPLICATION_FORM_URLENCODED).body(BodyInserters.fromFormData(form)).exchange()
                .expectStatus().isEqualTo(HttpStatus.FOUND).expectBody().returnResult();
        assertThat(login.getResponseHeaders().getLocation()).as("logged in, not sent back to the login page")
                .hasToString("/");
        keep(login.getResponseCookies(), cookies, secure);
        ResponseCookie session = login.getResponseCookies().getFirst("SESSION");
        assertThat(session).as("a session cookie").isNotNull();
        assertThat(session.isHttpOnly()).as("HttpOnly").isTrue();
        assertThat(session.getSameSite()).as("SameSite").isEqualTo("Strict");
        if (cookies.getOrDefault("XSRF-TOKEN", "").isEmpty()) { // a new token after the login, on the next page
            keep(anonymous.get().uri("/api/me").cookies(c -> cookies.forEach(c::add)).exchange().expectStatus().isOk()
                    .expectBody().returnResult().getResponseCookies(), cookies, secure);
        }
        return new BrowserSession(cookies, Set.copyOf(secure));
    }

    private static void keep(MultiValueMap<String, ResponseCookie> set, Map<String, String> cookies, Set<String> secure) {
        set.forEach((name, values) -> {
            cookies.put(name, values.get(0).getValue());
            if (values.get(0).isSecure()) {
                secure.add(name);
            }
        });
    }

    String csrf() {
        return cookies.get("XSRF-TOKEN");
    }

    /** A client that sends this session's cookies and its CSRF token, as the dashboard's script does. */
    WebTestClient on(WebTestClient client) {
        return client.mutate().defaultCookies(c -> cookies.forEach(c::add)).defaultHeader("X-XSRF-TOKEN", csrf()).build();
    }
}
