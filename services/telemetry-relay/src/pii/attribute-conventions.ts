// The span, log and metric attributes exempt from the default scrubbing: `applyScrubbing` `manual` or `never` in
// @sentry/conventions 0.32.0 (SDK 11.12's); any other attribute is scrubbed. test/pii/attribute-conventions.test.ts checks
// the list against the package (UPDATE_CONVENTIONS=1 rewrites it).

/** The conventions' version this list was taken from. */
export const CONVENTIONS_VERSION = '0.32.0';

/** Space-separated; a name ending in `.<key>` stands for every name under its prefix. */
export const UNSCRUBBED_ATTRIBUTES = `
  address ai.completion_tokens.used ai.finish_reason ai.frequency_penalty ai.function_call ai.generation_id
  ai.input_messages ai.is_search_required ai.metadata ai.model.id ai.model.provider ai.model_id ai.pipeline.name
  ai.preamble ai.presence_penalty ai.prompt ai.prompt.messages ai.prompt.tools ai.prompt_tokens.used
  ai.raw_prompting ai.response.id ai.response.model ai.response.object ai.response.text ai.response.timestamp
  ai.response.toolCalls ai.response_format ai.responses ai.schema ai.seed ai.streaming ai.tags ai.temperature
  ai.texts ai.toolCall.args ai.toolCall.result ai.tool_calls ai.tools ai.top_k ai.top_p ai.total_cost
  ai.total_tokens.used ai.usage.tokens ai.values angular.version anthropic.tool_result.content app.app_build
  app.app_identifier app.app_name app.app_start_time app.app_version app.build app.identifier app.in_foreground
  app.name app.start_time app.version app.vitals.frames.delay.value app.vitals.frames.frozen.count
  app.vitals.frames.frozen.rate app.vitals.frames.slow.count app.vitals.frames.slow.rate
  app.vitals.frames.total.count app.vitals.stall.duration app.vitals.stall.percentage app.vitals.start.cold.value
  app.vitals.start.prewarmed app.vitals.start.reason app.vitals.start.screen app.vitals.start.type
  app.vitals.start.warm.value app.vitals.ttfd.value app.vitals.ttid.value app_start_cold app_start_type
  app_start_warm art.gc.blocking_count art.gc.blocking_time art.gc.pre_oome_count art.gc.total_count
  art.gc.total_time art.gc.waiting_time art.memory.free art.memory.free_until_gc art.memory.free_until_oome
  art.memory.max art.memory.total aws.cloudwatch.logs.log_group aws.cloudwatch.logs.log_stream
  aws.cloudwatch.logs.url aws.dynamodb.attribute_definitions aws.dynamodb.attributes_to_get
  aws.dynamodb.consistent_read aws.dynamodb.consumed_capacity aws.dynamodb.count aws.dynamodb.exclusive_start_table
  aws.dynamodb.global_secondary_index_updates aws.dynamodb.global_secondary_indexes aws.dynamodb.index_name
  aws.dynamodb.item_collection_metrics aws.dynamodb.limit aws.dynamodb.local_secondary_indexes
  aws.dynamodb.projection aws.dynamodb.provisioned_read_capacity aws.dynamodb.provisioned_write_capacity
  aws.dynamodb.scan_forward aws.dynamodb.scanned_count aws.dynamodb.segment aws.dynamodb.select
  aws.dynamodb.table_count aws.dynamodb.table_names aws.dynamodb.total_segments aws.extended_request_id
  aws.kinesis.stream.name aws.kinesis.stream_name aws.lambda.aws_request_id aws.lambda.execution_duration_in_millis
  aws.lambda.function_name aws.lambda.function_version aws.lambda.initialization_type aws.lambda.invoked_arn
  aws.lambda.invoked_function_arn aws.lambda.remaining_time_in_millis aws.lambda.resource_mapping.id
  aws.lambda.target_function.name aws.lambda.web.endpoint_name aws.log.group.names aws.log.stream.names
  aws.operation_name aws.request.extended_id aws.request.id aws.request_id aws.s3.bucket aws.s3.part_number
  aws.s3.upload_id aws.secretsmanager.secret.arn aws.secretsmanager.secret.name aws.sns.topic.arn aws.sqs.queue.url
  aws.step_functions.activity.arn aws.step_functions.activity.name aws.step_functions.execution.arn
  aws.step_functions.state_machine.arn aws.step_functions.state_machine.name aws_region blocked_main_thread
  browser.bfcache.frame browser.bfcache.not_restored_reason_count browser.bfcache.outcome browser.bfcache.reason
  browser.name browser.navigation.id browser.navigation.type browser.paint.type
  browser.performance.navigation.activation_start browser.performance.time_origin browser.report.type
  browser.script.invoker browser.script.invoker_type browser.script.source_char_position browser.version
  browser.web_vital.cls.report_event browser.web_vital.cls.source.<key> browser.web_vital.cls.value
  browser.web_vital.fcp.value browser.web_vital.fp.value browser.web_vital.inp.input_delay
  browser.web_vital.inp.interaction_type browser.web_vital.inp.presentation_delay
  browser.web_vital.inp.processing_duration browser.web_vital.inp.target browser.web_vital.inp.value
  browser.web_vital.lcp.element browser.web_vital.lcp.element_render_delay browser.web_vital.lcp.id
  browser.web_vital.lcp.load_time browser.web_vital.lcp.render_time browser.web_vital.lcp.report_event
  browser.web_vital.lcp.resource_load_delay browser.web_vital.lcp.resource_load_duration browser.web_vital.lcp.size
  browser.web_vital.lcp.value browser.web_vital.ttfb.request_time browser.web_vital.ttfb.value cache.hit
  cache.item_age cache.item_size cache.key cache.operation cache.ttl cache.write channel client.port
  cloud.account.id cloud.availability_zone cloud.platform cloud.provider cloud.region cloud.resource_id
  cloudflare.d1.duration cloudflare.d1.query_type cloudflare.d1.rows_read cloudflare.d1.rows_written
  cloudflare.durable_object.query.bindings cloudflare.durable_object.response.rows_read
  cloudflare.durable_object.response.rows_written cloudflare.r2.bucket cloudflare.r2.operation
  cloudflare.r2.request.delimiter cloudflare.r2.request.key cloudflare.r2.request.part_number
  cloudflare.r2.request.prefix cloudflare.workflow.attempt cloudflare.workflow.retries.backoff
  cloudflare.workflow.retries.delay cloudflare.workflow.retries.limit cloudflare.workflow.timeout cls
  cls.source.<key> code code.file.path code.filepath code.function code.function.name code.line.number code.lineno
  code.namespace connection.rtt connectionType culture.calendar culture.display_name culture.is_24_hour_format
  culture.locale culture.timezone db.collection.name db.driver.name db.mongodb.collection db.name db.namespace
  db.operation db.operation.batch.size db.operation.name db.query.summary db.redis.connection db.redis.key
  db.response.status_code db.stored_procedure.name db.system db.system.name db.user device.archs
  device.battery_level device.battery_temperature device.boot_time device.brand device.charging device.chipset
  device.class device.connection_type device.cpu_description device.external_free_storage
  device.external_storage_size device.family device.free_memory device.free_storage device.id device.locale
  device.low_memory device.low_power_mode device.manufacturer device.memory.estimated_capacity device.memory_size
  device.model device.model_id device.online device.orientation device.processor_count device.processor_frequency
  device.screen_density device.screen_dpi device.screen_height_pixels device.screen_width_pixels device.simulator
  device.storage_size device.thermal_state device.timezone device.usable_memory deviceMemory dist
  django.function_name django.middleware_name effectiveConnectionType environment error.type event.id event.name
  exception.escaped exception.type faas.coldstart faas.cron faas.document.collection faas.document.operation
  faas.document.time faas.duration_in_ms faas.entry_point faas.execution faas.id faas.identity faas.instance
  faas.invocation_id faas.invoked_name faas.invoked_provider faas.invoked_region faas.max_memory faas.name faas.time
  faas.trigger faas.version fcp file.size flag.evaluation.<key> fp frames.delay frames.frozen frames.slow
  frames.total frames_frozen_rate frames_slow_rate fs_error gcp.function.context.event_id
  gcp.function.context.event_type gcp.function.context.id gcp.function.context.resource gcp.function.context.source
  gcp.function.context.specversion gcp.function.context.time gcp.function.context.timestamp
  gcp.function.context.type gcp.project.id gcp_region gen_ai.agent.name gen_ai.context.utilization
  gen_ai.context.window_size gen_ai.conversation.id gen_ai.cost.cache_creation.input_tokens
  gen_ai.cost.cache_read.input_tokens gen_ai.cost.input_tokens gen_ai.cost.output_tokens
  gen_ai.cost.reasoning.output_tokens gen_ai.cost.total_tokens gen_ai.embeddings.input gen_ai.function_id
  gen_ai.input.messages gen_ai.memory.query.text gen_ai.memory.record.count gen_ai.memory.record.id
  gen_ai.memory.records gen_ai.memory.store.id gen_ai.operation.name gen_ai.operation.type gen_ai.output.messages
  gen_ai.pipeline.name gen_ai.prompt gen_ai.prompt.name gen_ai.provider.name gen_ai.request.available_tools
  gen_ai.request.frequency_penalty gen_ai.request.max_tokens gen_ai.request.messages gen_ai.request.model
  gen_ai.request.presence_penalty gen_ai.request.reasoning.level gen_ai.request.schema gen_ai.request.seed
  gen_ai.request.stop_sequences gen_ai.request.temperature gen_ai.request.top_k gen_ai.request.top_p
  gen_ai.response.finish_reason gen_ai.response.finish_reasons gen_ai.response.id gen_ai.response.model
  gen_ai.response.object gen_ai.response.streaming gen_ai.response.text gen_ai.response.time_to_first_chunk
  gen_ai.response.time_to_first_token gen_ai.response.tokens_per_second gen_ai.response.tool_calls gen_ai.system
  gen_ai.system.message gen_ai.system_instructions gen_ai.tool.call.arguments gen_ai.tool.call.result
  gen_ai.tool.call.result.size gen_ai.tool.definitions gen_ai.tool.description gen_ai.tool.input gen_ai.tool.message
  gen_ai.tool.name gen_ai.tool.output gen_ai.tool.type gen_ai.usage.cache_creation.input_tokens
  gen_ai.usage.cache_creation_input_tokens gen_ai.usage.cache_read.input_tokens gen_ai.usage.cache_read_input_tokens
  gen_ai.usage.completion_tokens gen_ai.usage.input_tokens gen_ai.usage.input_tokens.cache_write
  gen_ai.usage.input_tokens.cached gen_ai.usage.output_tokens gen_ai.usage.output_tokens.reasoning
  gen_ai.usage.prompt_tokens gen_ai.usage.reasoning.output_tokens gen_ai.usage.total_tokens graphql.operation.name
  graphql.operation.type graphql.processing.type grpc.error.bad_request.field_violations
  grpc.error.error_info.domain grpc.error.error_info.reason grpc.error.resource_info.description
  grpc.error.resource_info.resource_type grpc.error.retry_info.retry_delay_ms hapi.ext.type hapi.plugin.name
  hapi.type hardwareConcurrency heroku.dyno.name heroku.error.code heroku.error.description
  heroku.logplex.drain_token heroku.router.connect heroku.router.request_id heroku.router.service
  http.decoded_response_content_length http.flavor http.host http.method http.request.body.decoded_size
  http.request.body.size http.request.connect_start http.request.connection_end http.request.domain_lookup_end
  http.request.domain_lookup_start http.request.duration http.request.fetch_start http.request.method
  http.request.redirect_end http.request.redirect_start http.request.request_start http.request.resend_count
  http.request.response_end http.request.response_start http.request.same_origin
  http.request.secure_connection_start http.request.time_to_first_byte http.request.worker_start
  http.request_content_length http.request_content_length_uncompressed http.request_method
  http.response.body.decoded_size http.response.body.size http.response.header.content-length http.response.size
  http.response.status_code http.response.status_text http.response_content_length
  http.response_content_length_uncompressed http.response_transfer_size http.route http.scheme
  http.server.request.time_in_queue http.server_name http.status_code http.status_text http.user_agent id inp
  integrity.destination integrity.report_only jsonrpc.protocol.version jsonrpc.request.id jvm.gc.action jvm.gc.name
  jvm.memory.pool.name jvm.memory.type jvm.thread.daemon jvm.thread.state koa.name koa.type langchain.chain.name lcp
  lcp.element lcp.id lcp.loadTime lcp.renderTime lcp.size litestar.middleware_name logger.name mcp.auth.client.name
  mcp.cancelled.reason mcp.cancelled.request_id mcp.client.name mcp.client.title mcp.client.version
  mcp.lifecycle.phase mcp.logging.data_type mcp.logging.level mcp.logging.logger mcp.method.name
  mcp.progress.current mcp.progress.message mcp.progress.percentage mcp.progress.token mcp.progress.total
  mcp.prompt.name mcp.prompt.result.message_count mcp.prompt.result.message_role mcp.protocol.ready
  mcp.protocol.version mcp.request.id mcp.resource.protocol mcp.server.name mcp.server.title mcp.server.version
  mcp.session.id mcp.tool.name mcp.tool.result.<key>.data_size mcp.tool.result.content mcp.tool.result.content_count
  mcp.tool.result.data_size mcp.tool.result.is_error mcp.transport messaging.batch.message_count
  messaging.bullmq.flow.name messaging.bullmq.job.attempt_finished_timestamp messaging.bullmq.job.bulk.names
  messaging.bullmq.job.ids messaging.bullmq.job.name messaging.bullmq.job.processed_timestamp
  messaging.bullmq.job.scheduler.id messaging.bullmq.job.state messaging.bullmq.job.type
  messaging.bullmq.queue.clean.count messaging.bullmq.queue.clean.limit messaging.bullmq.queue.drain.delay
  messaging.bullmq.queue.event.max_length messaging.bullmq.queue.grace messaging.bullmq.queue.jobs.state
  messaging.bullmq.queue.rate_limit messaging.bullmq.worker.do_not_wait_active messaging.bullmq.worker.force_close
  messaging.bullmq.worker.jobs_to_extend_locks messaging.bullmq.worker.name messaging.bullmq.worker.rate_limit
  messaging.bullmq.worker.stalled_jobs messaging.client.id messaging.conversation_id messaging.destination
  messaging.destination.connection messaging.destination.name messaging.destination.partition.id
  messaging.destination_kind messaging.kafka.message.key messaging.kafka.message.tombstone messaging.kafka.offset
  messaging.message.body.size messaging.message.conversation_id messaging.message.envelope.size messaging.message.id
  messaging.message.receive.latency messaging.message.retry.count messaging.message_id messaging.operation
  messaging.operation.name messaging.operation.type messaging.protocol messaging.protocol_version
  messaging.rabbitmq.destination.routing_key messaging.rabbitmq.routing_key messaging.system method middleware.name
  navigation.type nel.elapsed_time nel.phase nel.sampling_fraction nel.sampling_function nel.type net.host.ip
  net.host.name net.host.port net.peer.name net.peer.port net.protocol.name net.protocol.version net.sock.family
  net.sock.host.addr net.sock.host.port net.sock.peer.port net.transport network.connection.effective_type
  network.connection.rtt network.connection.type network.local.address network.local.port network.peer.port
  network.protocol.name network.protocol.version network.transport network.type os.build os.build_id os.description
  os.kernel_version os.name os.raw_description os.rooted os.theme os.type os.version otel.kind otel.scope.name
  otel.scope.version otel.status_code page.server_rendering.type performance.activationStart performance.timeOrigin
  port previous_route process.executable.name process.pid process.runtime.description process.runtime.engine.name
  process.runtime.engine.version process.runtime.name process.runtime.version profile_id react.version
  react_native.architecture react_native.module.call.count react_native.module.call.distinct_count
  react_native.module.duration.max react_native.module.duration.total react_native.module.error.count
  react_native.module.kind react_native.module.method react_native.module.name react_native.module.top.duration
  react_native.module.top.name redis.command redis.key release replayId replay_id resource.deployment.environment
  resource.deployment.environment.name resource.render_blocking_status route router.navigation.type
  rpc.grpc.status_code rpc.method rpc.response.status_code rpc.service rpc.system rpc.system.name runtime.build
  runtime.name runtime.raw_description runtime.version score.<key> score.ratio.<key> score.total score.weight.<key>
  sentry.action sentry.browser.name sentry.browser.version sentry.cancellation_reason sentry.category
  sentry.client_sample_rate sentry.description sentry.dist sentry.domain sentry.dsc.environment
  sentry.dsc.project_id sentry.dsc.public_key sentry.dsc.release sentry.dsc.sample_rate sentry.dsc.sampled
  sentry.dsc.trace_id sentry.dsc.transaction sentry.environment sentry.event.serialized_breadcrumbs
  sentry.event.serialized_contexts sentry.event.serialized_extra sentry.event.serialized_meta sentry.exclusive_time
  sentry.frames.frozen sentry.frames.slow sentry.frames.total sentry.graphql.operation sentry.group
  sentry.http.prefetch sentry.idle_span_finish_reason sentry.is_localhost sentry.is_remote sentry.kind
  sentry.link.type sentry.main_thread sentry.message.template sentry.metric.source sentry.mobile sentry.module.<key>
  sentry.nextjs.ssr.function.route sentry.nextjs.ssr.function.type sentry.normalized_db_query
  sentry.normalized_db_query.hash sentry.observed_timestamp_nanos sentry.op sentry.origin sentry.pageload.span_id
  sentry.platform sentry.profile_id sentry.profiler_id sentry.relay.ingress sentry.relay.pipeline sentry.release
  sentry.replay_id sentry.replay_is_buffering sentry.report_event sentry.sdk.integrations sentry.sdk.name
  sentry.sdk.version sentry.segment.id sentry.segment.name sentry.segment.name.source sentry.segment_id
  sentry.server_sample_rate sentry.source sentry.span.source sentry.status sentry.status.message sentry.status_code
  sentry.sveltekit.navigation.type sentry.thread.id sentry.timestamp.sequence sentry.trace.parent_span_id
  sentry.trace.status sentry.trace_lifecycle sentry.transaction sentry.user.geo.city sentry.user.geo.country_code
  sentry.user.geo.region sentry.user.geo.subdivision sentry.user.geo.subregion server.address server.ext.type
  server.port server_name service.name service.version session.id stall_percentage stall_total_time
  starlette.middleware_name starlite.middleware_name state.type subprocess.pid sveltekit.load.environment
  sveltekit.load.node_id sveltekit.load.node_type sveltekit.tracing.original_name thread.id thread.name timber.tag
  time_to_full_display time_to_initial_display tls.protocol.name tls.protocol.version transaction
  trpc.procedure_path trpc.procedure_type ttfb ttfb.requestTime turbo_module.arch turbo_module.method
  turbo_module.name turbo_module.top_module turbo_module.top_module_duration_ms turbo_module.total_call_count
  turbo_module.total_duration_ms turbo_module.total_error_count turbo_module.unique_methods
  turbo_modules.total_call_count turbo_modules.total_duration_ms turbo_modules.total_error_count
  turbo_modules.unique_methods type ui.component_name ui.contributes_to_ttfd ui.contributes_to_ttid
  ui.element.height ui.element.id ui.element.identifier ui.element.load_time ui.element.paint_type
  ui.element.render_time ui.element.type ui.element.width url.domain url.port url.same_origin url.scheme
  url.template user.geo.city user.geo.country_code user.geo.region user.geo.subdivision user.geo.subregion
  user_agent.original vercel.branch vercel.build_id vercel.deployment_id vercel.destination vercel.edge_type
  vercel.entrypoint vercel.execution_region vercel.id vercel.log_type vercel.path vercel.project_id
  vercel.project_name vercel.proxy.cache_id vercel.proxy.host vercel.proxy.lambda_region vercel.proxy.method
  vercel.proxy.path_type vercel.proxy.path_type_variant vercel.proxy.region vercel.proxy.response_byte_size
  vercel.proxy.scheme vercel.proxy.status_code vercel.proxy.timestamp vercel.proxy.user_agent
  vercel.proxy.vercel_cache vercel.proxy.vercel_id vercel.proxy.waf_action vercel.proxy.waf_rule_id
  vercel.request_id vercel.source vercel.status_code
`;
