import { createDenoHandler } from 'npm:kagent-chat/proxy/deno';

// PORT and HOST as the Node command reads them; 0.0.0.0 lets a container's or a host's network reach it.
Deno.serve({ hostname: Deno.env.get('HOST') ?? '0.0.0.0', port: Number(Deno.env.get('PORT') ?? 8788) }, createDenoHandler());
