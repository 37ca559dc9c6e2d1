// GLSL ES 3.0 sources of the WebGL2 compositor's passes (see webgl-compositor.ts for how they chain).
import { CHOKE } from './effect.js';

/** One triangle that covers the viewport; v_uv runs 0→1 over it, row 0 of a texture at v_uv.y = 0. */
export const FULLSCREEN_VERTEX = `#version 300 es
out vec2 v_uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  v_uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}`;

/**
 * Subject coverage of each factor×factor block of class ids: 1 where no pixel is background, 0 where all
 * are, fractions on the edge, so that the downsampled mask is already antialiased before it is blurred.
 */
export const COVERAGE_FRAGMENT = `#version 300 es
precision highp float;
uniform highp usampler2D u_ids;
uniform uint u_background;
uniform int u_factor;
out vec4 outColor;
void main() {
  ivec2 size = textureSize(u_ids, 0);
  ivec2 base = ivec2(gl_FragCoord.xy) * u_factor;
  float subject = 0.0;
  for (int dy = 0; dy < u_factor; dy++) {
    for (int dx = 0; dx < u_factor; dx++) {
      ivec2 p = min(base + ivec2(dx, dy), size - 1);
      subject += texelFetch(u_ids, p, 0).r == u_background ? 0.0 : 1.0;
    }
  }
  outColor = vec4(subject / float(u_factor * u_factor));
}`;

/** One direction of a separable Gaussian (weights normalised over the taps taken, so flat stays flat). */
export const BLUR_FRAGMENT = `#version 300 es
precision highp float;
uniform sampler2D u_source;
uniform vec2 u_step;
uniform float u_sigma;
uniform int u_radius;
in vec2 v_uv;
out vec4 outColor;
void main() {
  vec4 sum = vec4(0.0);
  float total = 0.0;
  for (int i = -u_radius; i <= u_radius; i++) {
    float w = exp(-0.5 * float(i * i) / (u_sigma * u_sigma));
    sum += w * texture(u_source, v_uv + float(i) * u_step);
    total += w;
  }
  outColor = sum / total;
}`;

/**
 * The frame downsampled for the background blur, weighted by how much background each pixel is
 * (premultiplied: rgb·w, w). Blurring that and dividing by the blurred weight spreads only background
 * colours, so the subject leaves no halo in the blurred background around it.
 */
export const BACKGROUND_FRAGMENT = `#version 300 es
precision highp float;
uniform sampler2D u_frame;
uniform sampler2D u_alpha;
uniform vec2 u_texel;
in vec2 v_uv;
out vec4 outColor;
void main() {
  // Four bilinear taps a texel apart: a 4×4 box of the full-size frame, so the small copy does not alias.
  vec3 rgb = 0.25 * (texture(u_frame, v_uv + vec2(-u_texel.x, -u_texel.y)).rgb + texture(u_frame, v_uv + vec2(u_texel.x, -u_texel.y)).rgb
    + texture(u_frame, v_uv + vec2(-u_texel.x, u_texel.y)).rgb + texture(u_frame, v_uv + u_texel).rgb);
  float w = 1.0 - texture(u_alpha, v_uv).r;
  outColor = vec4(rgb * w, w);
}`;

/** The output: the frame over the chosen background through the feathered alpha (premultiplied). */
export const COMPOSITE_FRAGMENT = `#version 300 es
precision highp float;
uniform sampler2D u_frame;
uniform sampler2D u_alpha;
uniform sampler2D u_background;
uniform int u_kind;
uniform vec3 u_color;
// Cover-fit of the replacement image: its uv = v_uv * scale + offset.
uniform vec4 u_cover;
in vec2 v_uv;
out vec4 outColor;
void main() {
  // The canvas's row 0 is at the bottom: flip so that the image's top row is drawn at the top.
  vec2 uv = vec2(v_uv.x, 1.0 - v_uv.y);
  vec4 frame = texture(u_frame, uv);
  // Choked a little (effect.ts, CHOKE).
  float a = smoothstep(${CHOKE.from.toFixed(3)}, ${CHOKE.to.toFixed(3)}, texture(u_alpha, uv).r);
  if (u_kind == 4) {
    outColor = vec4(frame.rgb * a, a);
    return;
  }
  vec3 back;
  if (u_kind == 1) {
    vec4 b = texture(u_background, uv);
    back = b.a > 1e-3 ? b.rgb / b.a : frame.rgb;
  } else if (u_kind == 2) {
    back = u_color;
  } else {
    back = texture(u_background, uv * u_cover.xy + u_cover.zw).rgb;
  }
  outColor = vec4(mix(back, frame.rgb, a), 1.0);
}`;
