package dev.rivulet.spring.requester;

/** A route with {@code {name}} placeholders, filled in order ({@code "orders.{id}"} with 42: {@code "orders.42"}). */
final class RouteTemplate {

    private RouteTemplate() {
    }

    static String expand(String template, Object... variables) {
        StringBuilder route = new StringBuilder(template.length());
        int used = 0;
        int at = 0;
        while (at < template.length()) {
            int open = template.indexOf('{', at);
            if (open < 0) {
                route.append(template, at, template.length());
                break;
            }
            int close = template.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException("unclosed '{' in route '" + template + "'");
            }
            if (used == variables.length) {
                throw new IllegalArgumentException("route '" + template + "' has more placeholders than the "
                        + variables.length + " variables given");
            }
            route.append(template, at, open).append(variables[used++]);
            at = close + 1;
        }
        if (used != variables.length) {
            throw new IllegalArgumentException("route '" + template + "' has " + used + " placeholders, "
                    + variables.length + " variables given");
        }
        return route.toString();
    }
}
