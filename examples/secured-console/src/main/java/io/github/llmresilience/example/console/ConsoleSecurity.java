package io.github.llmresilience.example.console;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.springframework.security.config.Customizer.withDefaults;

@Configuration(proxyBeanMethods = false)
class ConsoleSecurity {

	@Bean
	SecurityFilterChain operatorConsole(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests((requests) -> requests
			// Load balancers and probes read the health without credentials.
			.requestMatchers(EndpointRequest.to("health"))
			.permitAll()
			// The endpoint's writes (force a breaker, unpark an account, edit a chain).
			.requestMatchers(EndpointRequest.to("llmresilience").withHttpMethod(HttpMethod.POST))
			.hasRole("OPERATOR")
			// Its reads and the status page (llmresiliencepage): any signed-in user.
			.requestMatchers(EndpointRequest.toAnyEndpoint())
			.authenticated()
			.anyRequest()
			.authenticated());
		// A browser signs in on the login form (the status page polls with its session),
		// curl and scripts send HTTP Basic.
		http.formLogin(withDefaults());
		http.httpBasic(withDefaults());
		// No CSRF token for the endpoint: its writes take only a JSON body, which a page
		// of another site cannot send without a CORS preflight (refused here).
		http.csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.to("llmresilience")));
		return http.build();
	}

	@Bean
	UserDetailsService users() {
		// For the example only: replace with your identity provider.
		return new InMemoryUserDetailsManager(
				User.withUsername("reader").password("{noop}reader-secret").roles("READER").build(),
				User.withUsername("operator").password("{noop}operator-secret").roles("READER", "OPERATOR").build());
	}

}
